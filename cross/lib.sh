# shellcheck shell=bash disable=SC2034
# Shared by the cross/ scripts (sourced, not run): cache paths, the Debian mirror taken from the
# host's apt sources, stamps, and `in_root` (run a command in the trixie build root).
set -euo pipefail

CROSS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECT=$(cd "$CROSS_DIR/.." && pwd)
CACHE=${GRANDSTAND_CACHE:-$PROJECT/.cache}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
# Build root (trixie amd64: swiftlang 6.0.3 compiler) and the arm64 side (sysroot, SDK, debs).
# ARM64_DIR is bind-mounted into the build root at the same absolute path, so the paths written
# into the SDK bundle are valid inside the chroot and on the host (qemu-user's -L root).
CROSS_CACHE=$CACHE/cross
ROOT=$CROSS_CACHE/root
ARM64_DIR=$CROSS_CACHE/arm64
SYSROOT=$ARM64_DIR/sysroot
SDKS_DIR=$ARM64_DIR/sdks
SDK_NAME=grandstand-arm64
TRIPLE=aarch64-unknown-linux-gnu
SUITE=trixie
SCRATCH=${ARM64_SCRATCH:-$PROJECT/.build-arm64}

log() { printf '\033[1mcross:\033[0m %s\n' "$*" >&2; }
die() { printf 'cross: error: %s\n' "$*" >&2; exit 1; }

require_root() {
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "needs root (debootstrap, chroot, mounts) and sudo is missing"
        exec sudo --preserve-env=GRANDSTAND_CACHE,GRANDSTAND_DEBIAN_MIRROR,ARM64_SCRATCH "$0" "$@"
    fi
}

# "URI SUITE" lines for trixie, derived from the host's apt sources: every suite of the host's
# release (bookworm, bookworm-updates, bookworm-security) becomes the trixie one on the same URI.
# GRANDSTAND_DEBIAN_MIRROR overrides the main archive URI. Nothing is written into the repository.
trixie_sources() {
    local host_codename
    host_codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$host_codename" ] || die "cannot tell the host's Debian codename from /etc/os-release"
    if [ -n "${GRANDSTAND_DEBIAN_MIRROR:-}" ]; then
        echo "${GRANDSTAND_DEBIAN_MIRROR%/}/ $SUITE"
        echo "${GRANDSTAND_DEBIAN_MIRROR%/}/ $SUITE-updates"
        return
    fi
    # --no-release-info: works before any apt-get update (no lists needed).
    apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' |
        awk -v host="$host_codename" -v suite="$SUITE" '
            $2 == host || index($2, host "-") == 1 { sub("^" host, suite, $2); print $1, $2 }' |
        sort -u
}

# The archive URI that carries the plain trixie suite (for debootstrap).
trixie_mirror() {
    local m
    m=$(trixie_sources | awk -v s="$SUITE" '$2 == s { print $1; exit }')
    [ -n "$m" ] || die "no Debian archive for $SUITE in the host's apt sources (set GRANDSTAND_DEBIAN_MIRROR)"
    echo "$m"
}

# The host's Acquire:: settings (proxies, snapshot date checks), for apt inside the build root.
host_acquire_conf() {
    apt-config dump | grep -E '^Acquire::(http|https|ftp)::Proxy|^Acquire::Check-(Valid-Until|Date)' || true
}

# Content hash of files (inputs of a stage); stamps hold it, a mismatch means "rebuild".
inputs_hash() { cat "$@" | sha256sum | cut -d' ' -f1; }
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# Run a command inside the build root. A private mount namespace holds the mounts (proc, dev,
# the project and the arm64 tree at their host paths, the offline Swift package mirror), so
# they vanish with the command however it ends: nothing to unmount, nothing left behind.
in_root() {
    [ -x "$ROOT/usr/bin/env" ] || die "no build root at $ROOT (run cross/toolchain.sh)"
    mkdir -p "$ARM64_DIR"
    local binds=("$PROJECT" "$ARM64_DIR")
    [ -d /opt/swift-packages ] && binds+=(/opt/swift-packages)
    # System git config: its url.insteadOf entries point package URLs at the offline mirror.
    if [ -f /etc/gitconfig ]; then cp /etc/gitconfig "$ROOT/etc/gitconfig"; else rm -f "$ROOT/etc/gitconfig"; fi
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    local b
    for b in "${binds[@]}"; do mkdir -p "$ROOT$b"; done
    unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
        root=$1; shift; nb=$1; shift
        for ((i = 0; i < nb; i++)); do mount --bind "$1" "$root$1"; shift; done
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
    ' in_root "$ROOT" "${#binds[@]}" "${binds[@]}" "$@"
}

# rm -rf that refuses to cross into anything mounted below DIR (a leftover bind of /dev or the
# project inside a build root must never be deleted through).
safe_rm() {
    local dir=$1
    [ -e "$dir" ] || return 0
    dir=$(cd "$dir" && pwd -P)
    local m
    for m in $(awk -v d="$dir" 'index($5, d "/") == 1 || $5 == d { print $5 }' /proc/self/mountinfo | sort -r); do
        umount -R "$m" 2>/dev/null || umount -l "$m" || true
    done
    if awk -v d="$dir" 'index($5, d "/") == 1 || $5 == d { f = 1 } END { exit !f }' /proc/self/mountinfo; then
        die "refusing to delete $dir: something is still mounted below it"
    fi
    rm -rf --one-file-system "$dir"
}

# Run a command with its output appended to LOG; on failure show the log's tail and stop.
logged() {
    local logf=$1; shift
    if ! "$@" >> "$logf" 2>&1; then
        tail -25 "$logf" >&2
        die "failed: $* (log: $logf)"
    fi
}

# pkg-config sees the arm64 sysroot only (as NAME=VALUE words for env / in_root).
pkg_config_env() {
    local pc=$SYSROOT/usr/lib/aarch64-linux-gnu/pkgconfig:$SYSROOT/usr/share/pkgconfig
    echo "PKG_CONFIG_SYSROOT_DIR=$SYSROOT PKG_CONFIG_LIBDIR=$pc PKG_CONFIG_PATH=$pc"
}

# Run a command in the project directory inside the build root, pkg-config aimed at the sysroot.
in_project() {
    # shellcheck disable=SC2046
    in_root $(pkg_config_env) /bin/sh -c 'cd "$0" && exec "$@"' "$PROJECT" "$@"
}

# swift build for arm64 with the SDK bundle; extra arguments are passed on.
cross_swift_build() {
    in_project swift build --swift-sdks-path "$SDKS_DIR" --swift-sdk "$SDK_NAME" \
        --scratch-path "$SCRATCH" "$@"
}
