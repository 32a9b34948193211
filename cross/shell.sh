#!/usr/bin/env bash
# An interactive shell (or a command) in the trixie build root, set up exactly as for builds:
# project and arm64 tree at their host paths, pkg-config aimed at the sysroot. For debugging.
#   cross/shell.sh [COMMAND...]
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"
[ $# -gt 0 ] || set -- /bin/bash -i
in_project env SWIFT_SDK_FLAGS="--swift-sdks-path $SDKS_DIR --swift-sdk $SDK_NAME --scratch-path $SCRATCH" "$@"
