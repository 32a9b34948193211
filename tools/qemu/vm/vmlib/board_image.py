"""The test VM booting the shipped qemu-virt image (tools/image/build.sh, `make image`).

The disk is a copy of grandstand-qemu-virt.img; the only change to it is the harness's
test-only guest files (tools/qemu/vm/guest/: agent, serial autologin) written into the root
partition with debugfs (no loop mount). The image is A/B (board/qemu-virt/layout.sh): UEFI
firmware (qemu-efi-aarch64) starts GRUB from the ESP, which picks slot rootfs.0 or rootfs.1;
the guest files go into rootfs.0, and into the root filesystem of every test bundle
(`test_rootfs`), so an updated slot still has the agent. Test data goes on a second disk (label
gs-tests, mounted at /opt/gstests, which /opt/grandstand-tests links to): the cross-built test bundle and Swift runtime for
`kernel-suite`, and the packages of the `deb-upgrade` check.
"""
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import image as base_image

GUEST_DIR = base_image.VM_DIR / "guest"
MOUNT_UNIT = """# Test-image only: the harness's data disk (suite bundle, packages) at /opt/grandstand-tests.
[Unit]
Description=Grandstand test data disk
DefaultDependencies=no
Before=local-fs.target

[Mount]
What=/dev/disk/by-label/gs-tests
Where=/opt/gstests
Type=ext4
Options=nofail
"""
MOUNT_UNIT_NAME = "opt-gstests.mount"  # /opt/grandstand-tests links to it (no unit-name escaping)


FIRMWARE = Path("/usr/share/qemu-efi-aarch64/QEMU_EFI.fd")


class BoardImage:
    """The files `make image BOARD=qemu-virt` leaves in DIST: the A/B disk and its slot's root
    filesystem (`.rootfs.ext4`, what bundles carry)."""

    def __init__(self, disk):
        self.disk = Path(disk)
        self.rootfs = Path(str(self.disk)[: -len(".img")] + ".rootfs.ext4")
        for path in (self.disk, self.rootfs, FIRMWARE):
            if not path.is_file():
                raise base_image.ImageError(f"{path} is missing: run `make image BOARD=qemu-virt` "
                                            "(the firmware: apt-get install qemu-efi-aarch64)")

    def boot(self):
        return ("uefi", FIRMWARE)


def partitions(disk):
    """{name: (start, size)} in bytes of the disk image's GPT partitions."""
    table = json.loads(subprocess.run(["sfdisk", "--json", str(disk)], stdout=subprocess.PIPE,
                                      text=True, check=True).stdout)["partitiontable"]
    sector = table.get("sectorsize", 512)
    return {p.get("name", str(i)): (p["start"] * sector, p["size"] * sector)
            for i, p in enumerate(table["partitions"], 1)}


def _root_partition(disk):
    """(start, size) in bytes of slot A (rootfs.0), where the image's root filesystem is."""
    return partitions(disk)["rootfs.0"]


def _debugfs(partition, commands):
    """Runs debugfs -w commands on an ext4 image; ImageError naming the first failure."""
    proc = subprocess.run(["debugfs", "-w", "-f", "-", str(partition)], input="\n".join(commands) + "\n",
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # debugfs echoes each command ("debugfs: …") and reports errors on the lines after it; an
    # existing directory (mkdir) and a missing file (rm before write) are expected.
    benign = ("already exists", "File not found by ext2_lookup", "Allocated inode")
    errors = [line for line in proc.stdout.splitlines()
              if line.strip() and not line.startswith("debugfs") and not any(b in line for b in benign)]
    if proc.returncode != 0 or errors:
        raise base_image.ImageError(f"debugfs on {partition} failed: {errors[:3] or proc.returncode}")


def read_file(partition, path):
    """The text of `path` in an ext4 image ("" when it has none), read with debugfs."""
    proc = subprocess.run(["debugfs", "-R", f'cat "{path}"', str(partition)], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=True)
    return proc.stdout.decode(errors="replace")


def _guest_commands(staging):
    """debugfs commands that put the staged tree into the root filesystem (dirs, files, links)."""
    commands = []
    for path in sorted(staging.rglob("*")):
        target = "/" + str(path.relative_to(staging))
        if path.is_symlink():
            commands += [f'rm "{target}"', f'symlink "{target}" "{path.readlink()}"']
        elif path.is_dir():
            commands.append(f'mkdir "{target}"')
        else:
            commands += [f'rm "{target}"', f'write "{path}" "{target}"']
    return commands


def _staging(run_dir, with_data):
    """The guest files as a tree to write into a root filesystem."""
    staging = Path(tempfile.mkdtemp(prefix="gs-guest-", dir=run_dir))
    subprocess.run(["cp", "-r", "--preserve=mode", f"{GUEST_DIR}/.", f"{staging}/"], check=True)
    units = staging / "etc/systemd/system"
    (units / "sysinit.target.wants").mkdir(parents=True, exist_ok=True)
    (units / "sysinit.target.wants/grandstand-vm-agent.service").symlink_to(
        "/etc/systemd/system/grandstand-vm-agent.service")
    if with_data:
        (units / MOUNT_UNIT_NAME).write_text(MOUNT_UNIT)
        (units / "local-fs.target.wants").mkdir(parents=True, exist_ok=True)
        (units / "local-fs.target.wants" / MOUNT_UNIT_NAME).symlink_to(f"/etc/systemd/system/{MOUNT_UNIT_NAME}")
        (staging / "opt/gstests").mkdir(parents=True)
        (staging / "opt/grandstand-tests").symlink_to("gstests")
    return staging


def test_rootfs(board_image, run_dir, name, extra=None):
    """run_dir/NAME.ext4: the image's root filesystem plus the guest files and `extra`
    ({path in the guest: text}), the payload of a test bundle."""
    run_dir = Path(run_dir)
    rootfs = run_dir / f"{name}.ext4"
    subprocess.run(["cp", "--sparse=always", "--reflink=auto", str(board_image.rootfs), str(rootfs)], check=True)
    staging = _staging(run_dir, with_data=True)
    for path, text in (extra or {}).items():
        target = staging / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        if text.startswith("#!"):
            target.chmod(0o755)   # a script replacing a program (the crash bundle's grandstand)
    _debugfs(rootfs, _guest_commands(staging))
    shutil.rmtree(staging)
    return rootfs


def compose(board_image, run_dir, suite=None, debs=(), extra_mib=0):
    """run_dir/disk.img (the image plus the guest files) and, with suite or debs, run_dir/data.img.
    `extra_mib` more of (sparse) disk, which the first boot gives the data partition.
    Returns (disk, data disk or None)."""
    run_dir = Path(run_dir)
    disk = run_dir / "disk.img"
    subprocess.run(["cp", "--sparse=always", "--reflink=auto", str(board_image.disk), str(disk)], check=True)
    if extra_mib:
        with open(disk, "r+b") as f:
            f.truncate(disk.stat().st_size + (extra_mib << 20))
    start, size = _root_partition(disk)
    partition = run_dir / "root.part"
    subprocess.run(["dd", f"if={disk}", f"of={partition}", "bs=1M", f"skip={start}", f"count={size}",
                    "iflag=skip_bytes,count_bytes", "conv=sparse", "status=none"], check=True)
    with_data = suite is not None or bool(debs)
    staging = _staging(run_dir, with_data)
    data = _data_disk(run_dir, suite, debs) if with_data else None
    _debugfs(partition, _guest_commands(staging))
    shutil.rmtree(staging)
    subprocess.run(["dd", f"if={partition}", f"of={disk}", "bs=1M", f"seek={start}", "oflag=seek_bytes",
                    "conv=notrunc,sparse", "status=none"], check=True)
    partition.unlink()
    return disk, data


def _data_disk(run_dir, suite, debs):
    tree = run_dir / "data"
    if suite is not None:
        base_image.install_suite(tree, *suite, prefix="")
    (tree / "debs").mkdir(parents=True, exist_ok=True)
    for deb in debs:
        shutil.copy2(deb, tree / "debs" / Path(deb).name)
    used = int(subprocess.run(["du", "-sb", str(tree)], stdout=subprocess.PIPE, text=True, check=True).stdout.split()[0])
    size_mib = used * 5 // 4 // (1 << 20) + 32
    data = run_dir / "data.img"
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "gs-tests", "-d", str(tree), str(data), f"{size_mib}M"], check=True)
    shutil.rmtree(tree)
    return data
