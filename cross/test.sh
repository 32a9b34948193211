#!/usr/bin/env bash
# make test-arm64: cross-build the test bundle (debug) and run the whole suite under qemu-user.
# Arguments go to the Swift Testing run (e.g. --filter CaptureTests).
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"
"$CROSS_DIR/toolchain.sh"
t0=$SECONDS
# shellcheck disable=SC2086
cross_swift_build --build-tests ${CROSS_BUILD_FLAGS:-}
log "test bundle built in $((SECONDS - t0)) s"
[ -z "${ARM64_BUILD_ONLY:-}" ] || exit 0   # make test-arm64-inputs
bundle=$(find "$SCRATCH/$TRIPLE/debug" -maxdepth 1 -name '*PackageTests.xctest' -type f | head -1)
[ -n "$bundle" ] || die "no *PackageTests.xctest in $SCRATCH/$TRIPLE/debug"
export GRANDSTAND_QEMU_USER_ROOT=$SYSROOT
exec "$PROJECT/tools/qemu/user/test-suite.sh" "$bundle" "$@"
