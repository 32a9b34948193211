# Booted-VM system test (docs/qemu.md): Debian trixie arm64 under qemu-system-aarch64 -M virt (TCG),
# systemd as PID 1, the shipped qemu-virt image (make image BOARD=qemu-virt, docs/flashing.md),
# checked from the host: what is tested is what ships. Needs root (chroot, binfmt_misc).
# Caches under $(GRANDSTAND_CACHE).
#   make test-vm                                   the .debs and the qemu-virt image, boot it, every check + deb-upgrade
#   make vm-shell                                  the same image, root shell on the serial console
#   make test-vm-base [GRANDSTAND_ARM64_BIN=FILE]  developer shortcut: the old VM base with a bare binary installed
#   make vm-base                                   only build (or find) that base
GRANDSTAND_CACHE ?= $(CURDIR)/.cache
export GRANDSTAND_CACHE
GRANDSTAND_ARM64_BIN ?=
VM_BIN = $(or $(GRANDSTAND_ARM64_BIN),$(ARM64_BIN))
VM_BIN_PREREQ = $(if $(GRANDSTAND_ARM64_BIN),,cross)
VM_ARGS ?=

DEPS += qemu-system-arm qemu-user-static mmdebstrap arch-test debootstrap e2fsprogs cpio kmod xz-utils \
        python3 curl systemd qemu-efi-aarch64 rauc squashfs-tools
# The VM stage of `make check`: the shipped qemu-virt image booted with every check (test-vm), and
# beside it (tools/check.sh's lane) the rpi4 image's structure (image-check), what issue 11 asks for.
# CHECK_VM=test-vm-base is the quicker developer path (VM base + bare binary).
CHECK_VM ?= test-vm
CHECK += $(CHECK_VM)
CHECK_BESIDE_IMAGE += image-check

# The kernel-facility tests (live capture, GPIO, nl80211) run in the guest from the cross-built
# test bundle that `make test-arm64` builds (it runs before test-vm in `make check`).
VM_TEST_BUNDLE = $(ARM64_SCRATCH)/aarch64-unknown-linux-gnu/debug/GrandstandPackageTests.xctest
VM_SUITE_ARGS = $(if $(wildcard $(VM_TEST_BUNDLE)),--test-bundle "$(VM_TEST_BUNDLE)" \
                --swift-runtime "$(ARM64_SYSROOT)/usr/libexec/swift/lib/swift/linux")

.PHONY: test-vm test-vm-inputs test-vm-run test-vm-image test-vm-base vm-shell vm-base
# Every check on the shipped qemu-virt image (make image BOARD=qemu-virt), plus deb-upgrade.
test-vm: test-vm-inputs
	$(TEST_VM)

# tools/check.sh splits test-vm in two, so the lane that needs the image starts between them:
# what test-vm boots and sends (the host build is the multicast OTA check's headend,
# `grandstand send --files`), then the VM alone (its inputs' targets are phony: naming them
# again would rebuild the packages under the lane's feet).
test-vm-inputs: deps image-qemu-virt deb-previous build
test-vm-run:
	$(TEST_VM)

TEST_VM = tools/qemu/vm/vm.py test --image "$(DIST)/grandstand-qemu-virt.img" --deb "$(DEB_ARM64)" \
	    --deb-previous "$(DEB_ARM64_PREV)" --sender "$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/grandstand" \
	    $(VM_SUITE_ARGS) $(VM_ARGS)

test-vm-image: test-vm

test-vm-base: deps $(VM_BIN_PREREQ)
	@test -n "$(VM_BIN)" || { echo "test-vm-base: no arm64 binary (make cross, or GRANDSTAND_ARM64_BIN=FILE)" >&2; exit 1; }
	tools/qemu/vm/vm.py test --binary "$(VM_BIN)" $(VM_SUITE_ARGS) $(VM_ARGS)

vm-shell: deps image-qemu-virt
	tools/qemu/vm/vm.py shell --image "$(DIST)/grandstand-qemu-virt.img" $(VM_ARGS)

vm-base: deps
	tools/qemu/vm/vm.py base
