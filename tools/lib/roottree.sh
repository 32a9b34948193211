# shellcheck shell=bash disable=SC2034 # sourced: the variables are used by the builders
# The one shell library of the Debian root-tree builders (sourced, not run; bash): cross/ (build
# root, arm64 sysroot), tools/qemu/vm/build-base.sh (the VM base), tools/image/build.sh (board
# images) and packaging/ (host root, lifecycle test). What they all need, once: logging, the
# Debian mirror read from the host's apt sources, package lists, mmdebstrap of an arm64 tree with
# the slow maintainer helpers diverted, binfmt_misc for arm64 chroots, and entering a tree.
# A builder sets LOG_TAG (its name in log lines) after sourcing. See tools/lib/README.md.

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LIB_DIR/../.." && pwd)
LOG_TAG=${LOG_TAG:-grandstand}
# The Debian release of every target tree (image, VM base, cross build root and sysroot).
TARGET_SUITE=trixie
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# --- logging ------------------------------------------------------------------------------------

log() { printf '[%s %(%H:%M:%S)T] %s\n' "$LOG_TAG" -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }
# A tool's own output on stderr, indented under the log lines, line by line as it comes.
indent() { sed -u 's/^/  /' >&2; }

# --- package lists -------------------------------------------------------------------------------

# The words of list files (a package or module a line; `#` starts a comment), in order, on one
# line. A missing file is an empty list (a board need not have every list).
list_words() {
    local f
    for f; do if [ -e "$f" ]; then sed -e 's/#.*//' "$f"; fi; done | xargs
}

# --- the Debian mirror ---------------------------------------------------------------------------

# "URI SUITE" lines of the host's apt sources (apt's own reading, deb822 or one-line), every suite
# of the host's release (bookworm, bookworm-updates, bookworm-security) renamed to the same one of
# SUITE on the same URI (SUITE may be the host's own). GRANDSTAND_DEBIAN_MIRROR overrides the main
# archive (SUITE and SUITE-updates). Nothing is written into the repository.
#   debian_sources SUITE
debian_sources() {
    local suite=$1 host
    host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$host" ] || die "cannot tell the host's Debian codename from /etc/os-release"
    if [ -n "${GRANDSTAND_DEBIAN_MIRROR:-}" ]; then
        echo "${GRANDSTAND_DEBIAN_MIRROR%/}/ $suite"
        echo "${GRANDSTAND_DEBIAN_MIRROR%/}/ $suite-updates"
        return
    fi
    # --no-release-info: works before any apt-get update (no lists needed).
    # shellcheck disable=SC2016 # apt's format fields, not shell
    apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' |
        awk -v host="$host" -v suite="$suite" '
            $2 == host || index($2, host "-") == 1 { sub("^" host, suite, $2); print $1, $2 }' |
        sort -u
}

# The archive URI that carries SUITE itself, without a trailing slash.
#   debian_mirror SUITE
debian_mirror() {
    local m
    m=$(debian_sources "$1" | awk -v s="$1" '$2 == s { print $1; exit }')
    [ -n "$m" ] || die "no Debian archive for $1 in the host's apt sources (set GRANDSTAND_DEBIAN_MIRROR)"
    echo "${m%/}"
}

# --- binfmt_misc: arm64 programs in a chroot on an x86 host -----------------------------------

# Mounts binfmt_misc if needed and registers qemu-aarch64 with the F (fix binary) flag, so
# arm64 programs run transparently, even inside a chroot. Returns non-zero when impossible.
# Builds running at the same time (other caches, other checkouts) share the entry: each holds
# BINFMT_LOCK shared while it uses it, and the last one out removes an entry a build added
# (BINFMT_MARK), so the host is left as it was found (the qemu-user tests assume no
# transparent arm64 execution). An entry registered by anyone else is never touched.
# The lock and mark keep their first names (older checkouts sharing the host use them too).
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

# binfmt_setup or stop, dropped again when the script exits (binfmt_cleanup can come sooner).
binfmt_require() {
    binfmt_setup || die "binfmt_misc with qemu-aarch64 is needed to run arm64 programs in a tree"
    trap binfmt_cleanup EXIT
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

# --- entering a tree -----------------------------------------------------------------------------

# Runs COMMAND in a private mount namespace in which the tree ROOT has /proc, /dev and every DIR
# of --bind DIR (at the same path inside) mounted, so the mounts vanish with the command however
# it ends: nothing to unmount, nothing left behind. With --chroot COMMAND runs inside ROOT;
# without, on the host (a script that enters ROOT itself, `chroot "$1" …`, with ROOT as $1).
#   root_ns ROOT [--bind DIR]... [--chroot] [--] COMMAND [ARG]...
root_ns() {
    local root=$1 chroot='' b binds=()
    shift
    while [ $# -gt 0 ]; do
        case $1 in
        --bind) binds+=("$2"); shift 2 ;;
        --chroot) chroot=1; shift ;;
        --) shift; break ;;
        *) break ;;
        esac
    done
    for b in "${binds[@]}"; do mkdir -p "$root$b"; done
    # shellcheck disable=SC2016 # expands in the namespace's shell
    unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
        root=$1 chroot=$2 nb=$3; shift 3
        for ((i = 0; i < nb; i++)); do mount --bind "$1" "$root$1"; shift; done
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        if [ -n "$chroot" ]; then exec chroot "$root" "$@"; fi
        exec "$@"
    ' root_ns "$root" "$chroot" "${#binds[@]}" "${binds[@]}" "$@"
}

# --- arm64 trees with mmdebstrap -----------------------------------------------------------------

# Maintainer helpers that take minutes under qemu-user and build caches no tree here needs before
# its first boot (udev hardware database, MIME database, font cache): no-ops while packages install.
SLOW_HELPERS="/usr/bin/systemd-hwdb /usr/bin/update-mime-database /usr/bin/fc-cache"
# dpkg leaves out documentation (but the copyright files), manual pages, translations, info pages;
# mmdebstrap keeps the rules in the tree (/etc/dpkg/dpkg.cfg.d/99mmdebstrap) for later upgrades.
DPKG_EXCLUDES=(path-exclude=/usr/share/doc/* path-include=/usr/share/doc/*/copyright
    path-exclude=/usr/share/man/* path-exclude=/usr/share/locale/* path-exclude=/usr/share/info/*)

# Shell text that makes each PROGRAM of the tree $1 a no-op (dpkg-divert --rename: a package that
# ships it writes the real one aside), and text that undoes it: for mmdebstrap's hooks, which run
# with the tree as $1, and for root_ns scripts given the tree as $1.
#   divert_helpers PROGRAM...      restore_helpers PROGRAM...
divert_helpers() {
    # shellcheck disable=SC2016 # $1 and $f expand in the hook's shell
    printf 'for f in %s; do\n    chroot "$1" dpkg-divert --quiet --local --rename --add "$f"\n    printf "#!/bin/sh\\nexit 0\\n" > "$1$f"; chmod 755 "$1$f"; done\n' "$*"
}
restore_helpers() {
    # shellcheck disable=SC2016
    printf 'for f in %s; do\n    rm -f "$1$f"; chroot "$1" dpkg-divert --quiet --local --rename --remove "$f"; done\n' "$*"
}

# A Debian arm64 tree (--variant=essential plus PACKAGES) from the host's mirror, configured in
# an arm64 chroot through qemu-user (binfmt_setup first), dpkg without fsync and with
# DPKG_EXCLUDES, each of HELPERS a no-op from the essential hook on. The caller's options follow
# (hooks in order); one of its customize hooks must be `restore_helpers HELPERS`.
#   mmdebstrap_arm64 TREE SUITE "COMPONENT..." "PACKAGE..." "HELPER..." [MMDEBSTRAP_OPTION]...
mmdebstrap_arm64() {
    local tree=$1 suite=$2 components=$3 packages=$4 helpers=$5 mirror o opts=(--dpkgopt=force-unsafe-io)
    shift 5
    mirror=$(debian_mirror "$suite")
    for o in "${DPKG_EXCLUDES[@]}"; do opts+=("--dpkgopt=$o"); done
    # shellcheck disable=SC2086 # the helper list is words
    mmdebstrap --mode=root --arch=arm64 --variant=essential --components="${components// /,}" \
        --include="${packages// /,}" "${opts[@]}" --essential-hook="$(divert_helpers $helpers)" "$@" \
        "$suite" "$tree" "deb [signed-by=$KEYRING] $mirror $suite $components" 2>&1 | indent
}
