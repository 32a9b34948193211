# arm64 cross build from Debian trixie packages (Swift 6.0.3) and the test suite under qemu-user.
# Included by the top-level Makefile. See docs/cross.md.
#   make cross            release aarch64 grandstand at $(ARM64_BIN) (static Swift stdlib, stripped)
#   make test-arm64       the whole suite (XCTest + Swift Testing) under qemu-aarch64-static
#   make test-arm64-inputs  only the toolchain and the test bundle (`make check` builds them in a
#                         lane beside the host suite)
#   make cross-toolchain  only assemble/refresh the build root, sysroot and Swift SDK (cached)
#   make cross-shell      a shell in the build root, with the project and sysroot mounted
GRANDSTAND_CACHE ?= $(CURDIR)/.cache
export GRANDSTAND_CACHE
ARM64_SCRATCH := $(CURDIR)/.build-arm64
ARM64_BIN := $(ARM64_SCRATCH)/aarch64-unknown-linux-gnu/release/grandstand
# The arm64 sysroot (also the -L root of qemu-user; tools/qemu/user/run uses it).
ARM64_SYSROOT := $(GRANDSTAND_CACHE)/cross/arm64/sysroot
ARM64_TEST_ARGS ?=

DEPS += debootstrap qemu-user-static
CHECK += test-arm64
CHECK_BESIDE_HOST += test-arm64-inputs

.PHONY: cross cross-toolchain test-arm64 test-arm64-inputs cross-shell cross-clean
cross-toolchain: deps
	cross/toolchain.sh

# The scripts refresh the toolchain themselves (cross/toolchain.sh; a no-op when up to date).
cross: deps stamp
	ARM64_SCRATCH=$(ARM64_SCRATCH) cross/build.sh

# The suite's journal tests talk to the host's journald, as on the host (tools/host-journald.sh).
test-arm64: deps stamp
	@tools/host-journald.sh
	ARM64_SCRATCH=$(ARM64_SCRATCH) cross/test.sh $(ARM64_TEST_ARGS)

test-arm64-inputs: deps stamp
	ARM64_SCRATCH=$(ARM64_SCRATCH) ARM64_BUILD_ONLY=1 cross/test.sh

cross-shell: cross-toolchain
	cross/shell.sh

# Removes the arm64 build products and the whole cross cache (next build re-assembles it).
cross-clean:
	rm -rf $(ARM64_SCRATCH)
	cross/clean.sh
