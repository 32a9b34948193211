# Release artifacts (docs/flashing.md): Debian packages and flashable images. Included by the
# top-level Makefile.
#   make deb                     grandstand_VERSION_arm64.deb (cross build) and _amd64.deb (host build)
#   make deb-arm64 / deb-amd64   one of them
#   make deb-check               both, then lintian (no errors) and content checks
#   make deb-check-amd64         the host package: content, lintian, then apt-installed into a minimal
#                                chroot of the host's release (packaging/host-root.sh) and taken
#                                through install/run/upgrade/remove/purge (packaging/test-lifecycle.sh)
#   make image BOARD=qemu-virt   the qemu-virt disk image (+ kernel, initrd) with the arm64 .deb installed
#   make image BOARD=rpi4        the Raspberry Pi 4 SD-card image
#   make image-check             the rpi4 tryboot backend's test, then build the rpi4 image, check its
#                                structure, build its bundle and check that with `rauc info`
#   make bundle BOARD=qemu-virt  the image and a signed RAUC update bundle of its root filesystem
#   make bundle BOARD=rpi4       (rpi4: the root filesystem and the boot partition)
# Outputs go to $(DIST) (default: dist/, ignored by git). GRANDSTAND_DEB_VERSION overrides the
# package version (default: VERSION).
DIST ?= $(CURDIR)/dist
BOARD ?= qemu-virt
HOST_RELEASE_BIN = $(CURDIR)/.build/release/grandstand
DEB_VERSION = $(or $(GRANDSTAND_DEB_VERSION),$(shell cat VERSION))
DEB_ARM64 = $(DIST)/grandstand_$(DEB_VERSION)_arm64.deb
DEB_AMD64 = $(DIST)/grandstand_$(DEB_VERSION)_amd64.deb
# "Build N-1" of the VM's deb-upgrade check: the same binary, a lower version (VERSION~prev).
DEB_ARM64_PREV = $(DIST)/grandstand_$(DEB_VERSION)~prev_arm64.deb
DEB_AMD64_PREV = $(DIST)/grandstand_$(DEB_VERSION)~prev_amd64.deb

DEPS += dpkg-dev lintian help2man binutils-aarch64-linux-gnu qemu-user-static mmdebstrap \
        e2fsprogs dosfstools mtools fdisk rauc squashfs-tools openssl
# In `make check`: the arm64 package (the one operators install) and lintian, and the rpi4 image's
# structural check (its tree is a copy of the common tree qemu-virt's image, booted by test-vm,
# is built from: one mmdebstrap for both; timings in docs/flashing.md). The host package (a second,
# host release build) is run by hand.
# In the lane beside the VM stage that starts once its image and packages are built
# (tools/check.sh; image-check joins it from tools/qemu/vm.mk).
CHECK_BESIDE_IMAGE += deb-check-arm64
# deb-check-amd64 (the host package apt-installed in a bookworm chroot) is run by hand: it needs a
# second full build (release, ≈5 min of CPU, ≈14 min at load 5–15) and a 190 s mmdebstrap once,
# ≈10 min per fresh CI machine; it joins CHECK (`CHECK += deb-check-amd64`) when the stage times
# allow (docs/flashing.md: `make check` measured 55 min of the 90 with the image path).

.PHONY: bundle deb deb-arm64 deb-amd64 deb-check deb-check-arm64 deb-check-amd64 deb-previous image image-qemu-virt image-check
deb: deb-arm64 deb-amd64

deb-arm64: deps cross
	packaging/build-deb.sh arm64 "$(ARM64_BIN)" "$(DIST)"

# The host package needs a release host build with the Swift runtime linked in statically (no
# Swift runtime package exists in Debian bookworm): the only `swift build -c release` here.
deb-amd64: deps stamp
	$(SWIFT) build -c release --product grandstand --static-swift-stdlib $(SWIFT_BUILD_FLAGS)
	packaging/build-deb.sh amd64 "$(HOST_RELEASE_BIN)" "$(DIST)"

deb-check: deb
	packaging/check-deb.sh "$(DEB_ARM64)" "$(DEB_AMD64)"

deb-check-arm64: deb-arm64
	packaging/check-deb.sh "$(DEB_ARM64)"

# "N-1" is the same binary as VERSION~prev (as deb-previous for arm64).
deb-check-amd64: deb-amd64
	GRANDSTAND_DEB_VERSION=$(DEB_VERSION)~prev packaging/build-deb.sh amd64 "$(HOST_RELEASE_BIN)" "$(DIST)" >/dev/null
	packaging/check-deb.sh "$(DEB_AMD64)"
	packaging/test-lifecycle.sh --apt "$$(packaging/host-root.sh)" "$(DEB_AMD64_PREV)" "$(DEB_AMD64)"

deb-previous: deps cross
	GRANDSTAND_DEB_VERSION=$(DEB_VERSION)~prev packaging/build-deb.sh arm64 "$(ARM64_BIN)" "$(DIST)"

# What `make test-vm` boots (tools/qemu/vm.mk).
image-qemu-virt: deps deb-arm64
	tools/image/build.sh qemu-virt "$(DEB_ARM64)" "$(DIST)"

image: deps deb-arm64
	tools/image/build.sh "$(BOARD)" "$(DEB_ARM64)" "$(DIST)"

# A signed RAUC bundle (verity) of the board image's root filesystem (docs/updates.md); the
# development key is made under $(GRANDSTAND_CACHE)/update-keys (tools/update/keys.sh).
BUNDLE = $(DIST)/grandstand-$(BOARD)_$(DEB_VERSION).raucb
bundle: image
	tools/update/bundle.sh --version "$(DEB_VERSION)" "$(BOARD)" "$(DIST)/grandstand-$(BOARD).rootfs.ext4" "$(BUNDLE)"

# The rpi4 image without hardware: its tryboot backend against a simulated firmware, the image's
# structure read back, its bundle (rootfs and boot images) checked with `rauc info`.
RPI4_BUNDLE = $(DIST)/grandstand-rpi4_$(DEB_VERSION).raucb
image-check: deps deb-arm64
	tools/image/test-rauc-tryboot.sh
	tools/update/test-slot-hook.sh
	tools/image/build.sh rpi4 "$(DEB_ARM64)" "$(DIST)"
	tools/image/check-rpi4.sh "$(DIST)/grandstand-rpi4.img"
	tools/update/bundle.sh --version "$(DEB_VERSION)" rpi4 "$(DIST)/grandstand-rpi4.rootfs.ext4" "$(RPI4_BUNDLE)"
	tools/update/check-bundle.sh rpi4 "$(RPI4_BUNDLE)"
