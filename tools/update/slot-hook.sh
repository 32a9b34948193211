#!/bin/sh
# What an update keeps of a box (docs/updates.md, "What an update keeps"). A new slot is a fresh
# copy of the release's root filesystem, so everything a box made its own under /etc would be
# lost: its config.json (edited, or written by PUT /api/v1/config), machine id, SSH host keys,
# hostname, network settings. RAUC runs this hook, carried in every bundle (tools/update/bundle.sh),
# after it wrote the rootfs slot (`slot-post-install`, the new slot mounted at
# RAUC_SLOT_MOUNT_POINT, before the slot is marked active: a failure fails the install). It
# carries /etc over by the rule of an OSTree /etc merge, against the record of /etc the running
# release shipped (/usr/lib/grandstand-image/etc.sha256sums, written at image build by `record`):
#   changed  a file the release shipped whose content the box changed: the box's copy
#   added    a file or link the release did not ship: the box's, unless the new release ships it
#   kept as shipped: the new release's version (so a release's new defaults arrive)
# except the account databases, RAUC's own configuration and keyring, and files made per boot,
# which are the new release's (FIXED below). /root/.ssh (operators' keys) is carried whole.
#   slot-hook.sh slot-post-install       RAUC (class rootfs; other classes untouched)
#   slot-hook.sh record ROOT             the image build: ROOT/usr/lib/grandstand-image/etc.sha256sums
# GRANDSTAND_HOOK_ROOT: the running system's root (default /), for tools/update/test-slot-hook.sh.
set -eu
LIST=usr/lib/grandstand-image/etc.sha256sums
FIXED='etc/passwd etc/passwd- etc/group etc/group- etc/shadow etc/shadow- etc/gshadow etc/gshadow-
etc/subuid etc/subuid- etc/subgid etc/subgid- etc/.pwd.lock etc/.updated etc/ld.so.cache etc/mtab
etc/rauc/* etc/*.dpkg-old etc/*.dpkg-new etc/*.dpkg-dist etc/*.dpkg-tmp'

# One line per file or symlink under ./etc: "<sha256 or link:TARGET><TAB>etc/PATH", sorted.
entries() {
    find etc \( -type f -o -type l \) -print | LC_ALL=C sort | while IFS= read -r path; do
        if [ -L "$path" ]; then printf 'link:%s\t%s\n' "$(readlink "$path")" "$path"
        else printf '%s\t%s\n' "$(sha256sum < "$path" | cut -d' ' -f1)" "$path"; fi
    done
}

fixed() {
    set -f   # the patterns are case patterns, not globs of the running system's files
    for pattern in $FIXED; do
        # shellcheck disable=SC2254
        case $1 in $pattern) set +f; return 0 ;; esac
    done
    set +f
    return 1
}

# Copies ./PATH (the running system's file or symlink, mode and owner kept) over SLOT/PATH.
carry() {
    mkdir -p "$slot/$(dirname "$1")"
    rm -rf "${slot:?}/$1"
    cp -a "$1" "$slot/$1"
    echo "slot-hook: kept $2 /$1"
}

post_install() {
    [ "${RAUC_SLOT_CLASS:-}" = rootfs ] || exit 0
    slot=${RAUC_SLOT_MOUNT_POINT:?RAUC gave no mount point}
    cd "${GRANDSTAND_HOOK_ROOT:-/}"
    if [ -f "$LIST" ]; then
        # changed: shipped with another content; added: not shipped (tab-separated: paths may hold spaces)
        entries | awk -F '\t' -v OFS='\t' '
            NR == FNR { shipped[$2] = $1; next }
            !($2 in shipped) { print "added", $2; next }
            shipped[$2] != $1 { print "changed", $2 }' "$LIST" - |
        while IFS="$(printf '\t')" read -r how path; do
            fixed "$path" && continue
            if [ "$how" = added ] && { [ -e "$slot/$path" ] || [ -L "$slot/$path" ]; }; then continue; fi
            carry "$path" "$how"
        done
    else
        echo "slot-hook: the running system has no /$LIST (built before it): keeping its identity only" >&2
        for path in etc/machine-id etc/hostname etc/grandstand/config.json etc/ssh/ssh_host_*; do
            if [ -e "$path" ]; then carry "$path" identity; fi
        done
    fi
    if [ -d root/.ssh ]; then
        rm -rf "$slot/root/.ssh"
        mkdir -p "$slot/root"
        cp -a root/.ssh "$slot/root/.ssh"
        echo "slot-hook: kept /root/.ssh"
    fi
    sync
}

case ${1:-} in
slot-post-install) post_install ;;
record)
    [ $# -eq 2 ] || { echo "usage: $0 record ROOT" >&2; exit 2; }
    cd "$2"
    mkdir -p "$(dirname "$LIST")"
    entries > "$LIST.tmp"
    mv "$LIST.tmp" "$LIST" ;;
*) echo "slot-hook: unknown hook '${1:-}'" >&2; exit 1 ;;
esac
