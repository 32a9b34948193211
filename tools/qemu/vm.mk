# Booted-VM system test (docs/qemu.md): Debian trixie arm64 under qemu-system-aarch64 -M virt (TCG),
# systemd as PID 1, the shipped qemu-virt image (make image BOARD=qemu-virt, docs/flashing.md),
# checked from the host. Needs root (chroot, binfmt_misc). Caches under $(GRANDSTAND_CACHE).
#   make test-vm                              make cross, then boot the VM base with it installed and run every check
#   make test-vm-image                        the .debs and the qemu-virt image, then boot it (plus deb-upgrade)
#   make test-vm GRANDSTAND_ARM64_BIN=FILE    check that aarch64 binary instead (no cross build)
#   make vm-shell                             the same image, root shell on the serial console
#   make vm-base                              only build (or find) the cached rootfs/kernel/initramfs
GRANDSTAND_CACHE ?= $(CURDIR)/.cache
export GRANDSTAND_CACHE
GRANDSTAND_ARM64_BIN ?=
VM_BIN = $(or $(GRANDSTAND_ARM64_BIN),$(ARM64_BIN))
VM_BIN_PREREQ = $(if $(GRANDSTAND_ARM64_BIN),,cross)
VM_ARGS ?=

DEPS += qemu-system-arm qemu-user-static mmdebstrap arch-test debootstrap e2fsprogs cpio kmod xz-utils \
        python3 curl systemd
CHECK += test-vm

# The kernel-facility tests (live capture, GPIO, nl80211) run in the guest from the cross-built
# test bundle that `make test-arm64` builds (it runs before test-vm in `make check`).
VM_TEST_BUNDLE = $(ARM64_SCRATCH)/aarch64-unknown-linux-gnu/debug/GrandstandPackageTests.xctest
VM_SUITE_ARGS = $(if $(wildcard $(VM_TEST_BUNDLE)),--test-bundle "$(VM_TEST_BUNDLE)" \
                --swift-runtime "$(ARM64_SYSROOT)/usr/libexec/swift/lib/swift/linux")

.PHONY: test-vm test-vm-image vm-shell vm-base
test-vm: deps $(VM_BIN_PREREQ)
	@test -n "$(VM_BIN)" || { echo "test-vm: no arm64 binary (make cross, or GRANDSTAND_ARM64_BIN=FILE)" >&2; exit 1; }
	tools/qemu/vm/vm.py test --binary "$(VM_BIN)" $(VM_SUITE_ARGS) $(VM_ARGS)

# The same checks on the shipped qemu-virt image (make image BOARD=qemu-virt), plus deb-upgrade.
# Not yet in `make check`: the image build has not been timed on a fresh machine (docs/flashing.md).
test-vm-image: deps image-qemu-virt deb-previous
	tools/qemu/vm/vm.py test --image "$(DIST)/grandstand-qemu-virt.img" --deb "$(DEB_ARM64)" \
	    --deb-previous "$(DEB_ARM64_PREV)" $(VM_SUITE_ARGS) $(VM_ARGS)

vm-shell: deps $(VM_BIN_PREREQ)
	tools/qemu/vm/vm.py shell $(if $(VM_BIN),--binary "$(VM_BIN)") $(VM_ARGS)

vm-base: deps
	tools/qemu/vm/vm.py base
