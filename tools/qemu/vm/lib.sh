# shellcheck shell=bash disable=SC2034 # sourced: the variables are used by the scripts
# Shared helpers for the VM image scripts (sourced, not run). Bash.
# The Debian mirror comes from the host's apt sources at run time; nothing here names a host.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$VM_DIR/../../.." && pwd)
# $GRANDSTAND_CACHE (default <repo>/.cache) holds everything generated; the VM keeps to vm/.
VM_CACHE=${GRANDSTAND_CACHE:-$REPO_DIR/.cache}/vm
SUITE=${GRANDSTAND_VM_SUITE:-trixie}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

log() { printf '[vm %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Prints the first plain Debian archive URI of the host's apt sources (deb822 or one-line
# format), skipping security suites. GRANDSTAND_DEBIAN_MIRROR overrides it.
host_mirror() {
    if [ -n "${GRANDSTAND_DEBIAN_MIRROR:-}" ]; then echo "$GRANDSTAND_DEBIAN_MIRROR"; return; fi
    local f uri
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        uri=$(awk 'BEGIN { RS = ""; FS = "\n" }
            {
                types = ""; uris = ""; suites = ""; enabled = "yes"
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^Types:/) types = $i
                    else if ($i ~ /^URIs:/) uris = $i
                    else if ($i ~ /^Suites:/) suites = $i
                    else if ($i ~ /^Enabled:/) enabled = tolower($i)
                }
                if (types ~ /[ \t]deb([ \t]|$)/ && suites !~ /-security/ && enabled !~ /no/ && uris != "") {
                    sub(/^URIs:[ \t]*/, "", uris); split(uris, a, /[ \t]+/); print a[1]; exit
                }
            }' "$f")
        if [ -n "$uri" ]; then echo "${uri%/}"; return; fi
    done
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -nE '/-security/d; s/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' |
        head -n1)
    [ -n "$uri" ] || die "no Debian mirror in the host's apt sources (set GRANDSTAND_DEBIAN_MIRROR)"
    echo "${uri%/}"
}

# An apt-get/apt-cache option set for a private arm64 view of $SUITE under $1 (lists, debs),
# independent of the host's own apt state.
APT_OPTS=()
apt_setup() {
    local dir=$1 mirror=$2
    mkdir -p "$dir"/etc/apt/{apt.conf.d,preferences.d,sources.list.d} "$dir"/var/lib/apt/lists/partial \
        "$dir"/var/cache/apt/archives/partial "$dir"/var/lib/dpkg "$dir"/debs
    : > "$dir/var/lib/dpkg/status"
    echo "deb [signed-by=$KEYRING] $mirror $SUITE main" > "$dir/etc/apt/sources.list"
    APT_OPTS=(-o "Dir=$dir" -o "Dir::State::status=$dir/var/lib/dpkg/status"
        -o APT::Architecture=arm64 -o APT::Architectures=arm64
        -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q)
}

# Mounts binfmt_misc if needed and registers qemu-aarch64 with the F (fix binary) flag, so
# arm64 programs run transparently, even inside a chroot. Returns non-zero when impossible.
# Builds running at the same time (other caches, other checkouts) share the entry: each holds
# BINFMT_LOCK shared while it uses it, and the last one out removes an entry a build added
# (BINFMT_MARK), so the host is left as it was found (the qemu-user tests assume no
# transparent arm64 execution). An entry registered by anyone else is never touched.
BINFMT_DIR=/proc/sys/fs/binfmt_misc
BINFMT_LOCK=/run/grandstand-vm-binfmt.lock
BINFMT_MARK=/run/grandstand-vm-binfmt.registered
BINFMT_HELD=
binfmt_setup() {
    local d=$BINFMT_DIR conf=/usr/lib/binfmt.d/qemu-aarch64.conf flags interp
    if [ ! -e "$d/status" ]; then
        mount -t binfmt_misc binfmt_misc "$d" 2>/dev/null || { log "binfmt_misc: cannot mount"; return 1; }
    fi
    grep -qx enabled "$d/status" || { log "binfmt_misc: disabled on this host"; return 1; }
    exec 8>"$BINFMT_LOCK"
    flock -s 8
    BINFMT_HELD=1
    if grep -qs '^magic 7f454c460201010000000000000000000200b700' "$d"/*; then
        return 0
    fi
    # Registering is exclusive, so two builds cannot both add the entry.
    flock -x 8
    if ! grep -qs '^magic 7f454c460201010000000000000000000200b700' "$d"/*; then
        flags=$(sed -E 's/.*:([A-Z]*)$/\1/' "$conf" 2>/dev/null)
        interp=$(sed -E 's/.*:([^:]+):[A-Z]*$/\1/' "$conf" 2>/dev/null)
        if [[ $flags == *F* && -x $interp ]]; then
            cat "$conf" > "$d/register" || { flock -s 8; return 1; }
            echo "$d/$(cut -d: -f2 "$conf")" > "$BINFMT_MARK"
        elif [ -x /usr/bin/qemu-aarch64-static ]; then
            printf '%s' ':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
                > "$d/register" || { flock -s 8; return 1; }
            echo "$d/qemu-aarch64" > "$BINFMT_MARK"
        else
            log "binfmt_misc: no qemu-aarch64-static"; flock -s 8; return 1
        fi
        log "binfmt_misc: registered qemu-aarch64"
    fi
    flock -s 8
    return 0
}

# Drops this build's use of the entry; the last user removes an entry a build registered.
binfmt_cleanup() {
    local entry
    [ -n "$BINFMT_HELD" ] || return 0
    BINFMT_HELD=
    if flock -x -n 8; then
        entry=$(cat "$BINFMT_MARK" 2>/dev/null || true)
        if [ -n "$entry" ] && [ -e "$entry" ]; then
            echo -1 > "$entry" && log "binfmt_misc: removed $(basename "$entry") again"
        fi
        rm -f "$BINFMT_MARK"
    fi
    exec 8>&-
}

# True when the static arm64 busybox $1 runs inside a chroot holding nothing but itself.
binfmt_works_in_chroot() {
    local t rc
    t=$(mktemp -d)
    cp "$1" "$t/busybox"
    chroot "$t" /busybox true >/dev/null 2>&1; rc=$?
    rm -rf "$t"
    return $rc
}
