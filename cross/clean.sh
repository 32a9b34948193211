#!/usr/bin/env bash
# Deletes the cross cache (build root, sysroot, SDK, downloaded .debs), never through a mount.
# shellcheck source=cross/lib.sh
source "$(dirname "$0")/lib.sh"
require_root "$@"
exec 9> "$CACHE/.cross.lock"
flock 9
safe_rm "$CROSS_CACHE"
log "removed $CROSS_CACHE"
