# shellcheck shell=bash disable=SC2034
# Shared by the cross/ scripts (sourced, not run): cache paths, stamps, and `in_root` (run a
# command in the trixie build root). Logging, the Debian mirror, package lists and entering a
# tree come from the builders' library, tools/lib/roottree.sh.
set -euo pipefail

CROSS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tools/lib/roottree.sh
. "$CROSS_DIR/../tools/lib/roottree.sh"   # log, die, indent, list_words, debian_sources/_mirror, root_ns
LOG_TAG=cross
PROJECT=$REPO_DIR
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
SUITE=$TARGET_SUITE
SCRATCH=${ARM64_SCRATCH:-$PROJECT/.build-arm64}

require_root() {
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "needs root (debootstrap, chroot, mounts) and sudo is missing"
        exec sudo --preserve-env=GRANDSTAND_CACHE,GRANDSTAND_DEBIAN_MIRROR,ARM64_SCRATCH "$0" "$@"
    fi
}

# The host's Acquire:: settings (proxies, snapshot date checks), for apt inside the build root.
host_acquire_conf() {
    apt-config dump | grep -E '^Acquire::(http|https|ftp)::Proxy|^Acquire::Check-(Valid-Until|Date)' || true
}

# Content hash of a stage's inputs: files, the suite, and the definitions of the library
# functions the stages build with (`declare -f`: their text wherever it lives, not the rest of
# tools/lib/roottree.sh). Stamps hold it; a mismatch means "rebuild".
inputs_hash() {
    { cat "$@"; echo "$SUITE"; declare -f debian_sources debian_mirror list_words root_ns; } |
        sha256sum | cut -d' ' -f1
}
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# Run a command inside the build root, in its own mount namespace (root_ns) with the project,
# the arm64 tree and the offline Swift package mirror at their host paths.
in_root() {
    [ -x "$ROOT/usr/bin/env" ] || die "no build root at $ROOT (run cross/toolchain.sh)"
    mkdir -p "$ARM64_DIR"
    local binds=(--bind "$PROJECT" --bind "$ARM64_DIR")
    [ -d /opt/swift-packages ] && binds+=(--bind /opt/swift-packages)
    # System git config: its url.insteadOf entries point package URLs at the offline mirror.
    if [ -f /etc/gitconfig ]; then cp /etc/gitconfig "$ROOT/etc/gitconfig"; else rm -f "$ROOT/etc/gitconfig"; fi
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    root_ns "$ROOT" "${binds[@]}" --chroot /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
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
