#!/usr/bin/env bash
# make cross: the release arm64 grandstand (static Swift stdlib, stripped at link time), then
# its size and the shared libraries the target rootfs must provide.
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"
"$CROSS_DIR/toolchain.sh"
t0=$SECONDS
# No debug info at all (-gnone): the binary is stripped anyway, and it saves ~25% of the build.
# shellcheck disable=SC2086
cross_swift_build -c release --product grandstand --static-swift-stdlib -Xswiftc -gnone \
    -Xlinker --strip-all ${CROSS_BUILD_FLAGS:-}
bin=$SCRATCH/$TRIPLE/release/grandstand
[ -x "$bin" ] || die "no binary at $bin"
log "built in $((SECONDS - t0)) s: $bin"
in_root aarch64-linux-gnu-readelf -h "$bin" | grep -q 'AArch64' || die "$bin is not an AArch64 ELF"
if in_root aarch64-linux-gnu-readelf -S "$bin" | grep -qE '\.symtab|\.debug_'; then
    die "$bin still has symbols or debug info"
fi
echo "grandstand (aarch64, release, static Swift stdlib, stripped): $(stat -c %s "$bin") bytes ($(du -h "$bin" | cut -f1))"
echo "NEEDED:"
in_root aarch64-linux-gnu-readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/  \1/p'
