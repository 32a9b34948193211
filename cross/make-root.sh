#!/usr/bin/env bash
# Stage 1: the trixie amd64 build root that runs Debian's Swift 6.0.3 compiler (it needs glibc
# 2.41, newer than the bookworm host's). Rebuilt from scratch when its stamp does not match.
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"

list=$CROSS_DIR/packages/build-root.txt
want=$(inputs_hash "$CROSS_DIR/lib.sh" "$0" "$list")
stamp=$CROSS_CACHE/root.stamp
if stamp_ok "$stamp" "$want"; then log "build root up to date ($ROOT)"; exit 0; fi

command -v debootstrap >/dev/null || die "debootstrap is missing (make deps)"
rm -f "$stamp"
safe_rm "$ROOT"
mirror=$(debian_mirror "$SUITE")
t0=$SECONDS
log "debootstrap --variant=minbase $SUITE from $mirror"
: > "$CROSS_CACHE/debootstrap.log"
logged "$CROSS_CACHE/debootstrap.log" debootstrap --variant=minbase "$SUITE" "$ROOT" "$mirror"
log "debootstrap took $((SECONDS - t0)) s"

# apt inside: the trixie twins of the host's sources, and the host's Acquire settings.
debian_sources "$SUITE" | awk '{ print "deb", $1, $2, "main" }' > "$ROOT/etc/apt/sources.list"
rm -f "$ROOT"/etc/apt/sources.list.d/*
host_acquire_conf > "$ROOT/etc/apt/apt.conf.d/00host-acquire"
# No fsync per file: a half-written root is rebuilt anyway (no stamp), and it halves the time.
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nDPkg::Options { "--force-unsafe-io"; };\n' \
    > "$ROOT/etc/apt/apt.conf.d/01grandstand"

t1=$SECONDS
read -r -a pkgs <<< "$(list_words "$list")"
apt_log=$CROSS_CACHE/root-apt.log
: > "$apt_log"
logged "$apt_log" in_root apt-get update
logged "$apt_log" in_root DEBIAN_FRONTEND=noninteractive apt-get -y dist-upgrade
logged "$apt_log" in_root DEBIAN_FRONTEND=noninteractive apt-get install -y "${pkgs[@]}"
grep -E '^(Need to get|After this operation|Fetched)' "$apt_log" | indent
in_root apt-get clean
log "build root packages took $((SECONDS - t1)) s"

# Guard: an amd64 .pc of a linked library here would shadow the sysroot's.
leak=$(find "$ROOT/usr/lib" "$ROOT/usr/share" -path '*/pkgconfig/*.pc' \
    \( -name 'libpcap.pc' -o -name 'libsystemd.pc' -o -name 'libav*.pc' -o -name 'libisal.pc' \
       -o -name 'libnl-*.pc' -o -name 'libgpiod.pc' \) 2>/dev/null || true)
[ -z "$leak" ] || die "amd64 -dev files in the build root would shadow the sysroot: $leak"

in_root swift --version 2>&1 | head -1 >&2
log "build root ready: $(du -sh --one-file-system "$ROOT" | cut -f1) in $((SECONDS - t0)) s"
echo "$want" > "$stamp"
