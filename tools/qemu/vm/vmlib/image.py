"""The VM's disk: the cached Debian base (build-base.sh) plus the product, as one ext4 image.

Every run starts from a pristine copy of the base tree, installs grandstand with
install-product.sh (as the product image does) and the test-only guest files, then packs the
tree with `mkfs.ext4 -d` (no loop mounts, no root-only mount tricks).
"""
import os
import shutil
import struct
import subprocess
from pathlib import Path

VM_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = VM_DIR.parent.parent.parent
EM_AARCH64 = 183
LIBRARY_DIRS = ("usr/lib/aarch64-linux-gnu", "lib/aarch64-linux-gnu", "usr/lib", "lib")
# Units of the test image only: the harness's agent and DHCP on the uplink.
GUEST_UNITS = ("grandstand-vm-agent.service", "systemd-networkd.service")


class ImageError(Exception):
    """The image cannot be made: says which input is wrong and why."""


def build_base(env=None):
    """Builds or finds the cached base; returns its directory (vmlinuz, initrd.img, rootfs/)."""
    proc = subprocess.run([str(VM_DIR / "build-base.sh")], stdout=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        raise ImageError(f"build-base.sh failed with status {proc.returncode}")
    base = Path(proc.stdout.strip().splitlines()[-1])
    if not (base / "READY").exists():
        raise ImageError(f"build-base.sh printed {base}, which is not a finished base")
    return base


def elf_needed(binary):
    """The aarch64 ELF's DT_NEEDED sonames; ImageError when it is not an aarch64 ELF at all."""
    data = Path(binary).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ImageError(f"{binary} is not a 64-bit little-endian ELF file")
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine != EM_AARCH64:
        raise ImageError(f"{binary} is built for ELF machine {machine}, not aarch64 ({EM_AARCH64})")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    needed = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, _entsize in sections:
        if kind != 6:  # SHT_DYNAMIC
            continue
        strtab = sections[link]
        for pos in range(offset, offset + size, 16):
            tag, value = struct.unpack_from("<qQ", data, pos)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                start = strtab[4] + value
                needed.append(data[start:data.index(b"\0", start)].decode())
    return needed


def missing_libraries(rootfs, binary):
    """Sonames the binary needs that the root tree does not provide."""
    return [name for name in elf_needed(binary)
            if not any((Path(rootfs) / d / name).exists() for d in LIBRARY_DIRS)]


SUITE_DIR = "opt/grandstand-tests"


def install_suite(rootfs, bundle, runtime, prefix=SUITE_DIR):
    """Copies the cross-built test bundle and the Swift runtime it links (from the arm64
    sysroot) to /opt/grandstand-tests, for the tests qemu-user cannot run (live capture, GPIO
    lines, nl80211): the `kernel-suite` check runs them in the guest."""
    target = Path(rootfs) / prefix
    (target / "lib").mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle, target / "GrandstandPackageTests.xctest")
    for library in Path(runtime).glob("*.so"):
        if not library.name.startswith("lib_Internal"):
            shutil.copy2(library, target / "lib" / library.name)
    # The tests find fixtures through GRANDSTAND_FIXTURES and run the product binary from beside
    # the bundle: give them a copy of the fixture tree and sample, and the installed binary.
    repo = target / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    shutil.copytree(REPO_DIR / "Tests" / "Fixtures", repo / "Tests" / "Fixtures")
    (repo / "tools" / "samples").mkdir(parents=True)
    shutil.copy2(REPO_DIR / "tools" / "samples" / "clean.ts", repo / "tools" / "samples" / "clean.ts")
    link = target / "grandstand"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to("/usr/bin/grandstand")


def compose(base, binary, board, run_dir, suite=None):
    """Makes run_dir/root.img from the base, the product (unless binary is None), the guest
    test files and, when given, the (test bundle, Swift runtime dir) pair of `suite`."""
    run_dir = Path(run_dir)
    rootfs = run_dir / "rootfs"
    image = run_dir / "root.img"
    if rootfs.exists():
        shutil.rmtree(rootfs)
    subprocess.run(["cp", "-a", "--reflink=auto", str(base / "rootfs"), str(rootfs)], check=True)
    if binary is not None:
        missing = missing_libraries(rootfs, binary)
        if missing:
            raise ImageError(f"{binary} needs {', '.join(missing)}, which the VM root does not have: "
                             "add the packages to tools/qemu/vm/packages.list")
        subprocess.run([str(VM_DIR / "install-product.sh"), str(rootfs), str(binary), str(board)], check=True)
    subprocess.run(["cp", "-r", "--preserve=mode", f"{VM_DIR / 'guest'}/.", f"{rootfs}/"], check=True)
    if suite is not None:
        install_suite(rootfs, *suite)
    subprocess.run(["systemctl", f"--root={rootfs}", "--quiet", "enable", *GUEST_UNITS], check=True)
    used = int(subprocess.run(["du", "-sb", str(rootfs)], stdout=subprocess.PIPE, text=True,
                              check=True).stdout.split()[0])
    size_mib = (used * 5 // 4) // (1 << 20) + 256  # room for the journal and state
    if image.exists():
        image.unlink()
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "grandstand-root", "-d", str(rootfs), str(image),
                    f"{size_mib}M"], check=True)
    shutil.rmtree(rootfs)
    return image


def default_cache():
    """$GRANDSTAND_CACHE/vm, or <repo>/.cache/vm."""
    return Path(os.environ.get("GRANDSTAND_CACHE", REPO_DIR / ".cache")) / "vm"
