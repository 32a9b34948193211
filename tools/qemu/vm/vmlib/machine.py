"""A booted arm64 test VM: the qemu-system-aarch64 process, its console log, and the command
channel to the guest agent (guest/usr/local/libexec/grandstand-vm-agent) over virtio-serial."""
import base64
import ctypes
import os
import select
import signal
import socket
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

AGENT_PORT_NAME = "org.grandstand.agent"
GUEST_HTTP_PORT = 8080


class MachineError(Exception):
    """The VM or its agent misbehaved (did not boot, died, stopped answering)."""


@dataclass
class Result:
    """One guest command: exit status and merged stdout+stderr."""
    status: int
    output: str

    @property
    def ok(self):
        return self.status == 0


def free_port():
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    # PR_SET_PDEATHSIG: qemu gets SIGKILL if the harness itself is killed.
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


class Machine:
    """Starts QEMU on construction's start(); always call close() (or use `with`)."""

    def __init__(self, base, image, run_dir, *, smp=2, memory_mib=1024, cpu="cortex-a57",
                 console_stdio=False, extra_append="", boot=None, data_disk=None, venue=None):
        # boot: (kernel, initrd, command line) of a board image (tools/image/build.sh); without
        # it the base's kernel and initramfs boot the whole-disk ext4 root. data_disk: a second
        # virtio disk (the test data: suite bundle, packages for the upgrade check). venue: (the
        # relay's socket, this VM's socket, MAC) of a second NIC on the venue segment
        # (vmlib/venue.py): frames over unix datagram sockets (QEMU `-netdev dgram`).
        self.venue = venue
        self.base = Path(base) if base is not None else None
        self.boot = boot
        self.data_disk = Path(data_disk) if data_disk is not None else None
        self.image = Path(image)
        self.run_dir = Path(run_dir)
        self.smp, self.memory_mib, self.cpu = smp, memory_mib, cpu
        self.console_stdio = console_stdio
        self.extra_append = extra_append
        self.host_port = free_port()
        self.console_log = self.run_dir / "console.log"
        self.qemu_log = self.run_dir / "qemu.log"
        # Sockets live in a short private directory (AF_UNIX paths are limited to 107 bytes).
        self.socket_dir = Path(tempfile.mkdtemp(prefix="grandstand-vm-"))
        self.agent_path = self.socket_dir / "agent.sock"
        self.console_path = self.socket_dir / "console.sock"
        self.process = None
        self._sock = None
        self._buffer = b""
        self._next_id = 1
        self.boot_id = None

    def command_line(self):
        machine = "virt"
        if self.boot is not None and self.boot[0] == "uefi":
            # A/B board image: the firmware boots GRUB from the ESP, GRUB picks the slot and
            # owns the kernel command line (board/qemu-virt/grub.cfg).
            # acpi=off: the firmware hands Linux the machine's device tree, as direct kernel boot
            # did (under ACPI the PL061 GPIO lines the LED checks use are not gpiochip0).
            # i6300esb: a PCI watchdog the image's systemd arms (RuntimeWatchdogSec): a hung
            # guest resets, which under -no-reboot ends QEMU like a reboot (docs/updates.md).
            boot_args = ["-bios", str(self.boot[1]), "-device", "i6300esb"]
            machine = "virt,acpi=off"
        else:
            if self.boot is not None:
                kernel, initrd, cmdline = self.boot
                root_args = cmdline.strip()
            else:
                kernel, initrd = self.base / "vmlinuz", self.base / "initrd.img"
                root_args = "console=ttyAMA0 root=/dev/vda rootfstype=ext4 rw panic=-1 net.ifnames=0"
            append = " ".join(filter(None, [root_args, "systemd.show_status=error", self.extra_append]))
            boot_args = ["-kernel", str(kernel), "-initrd", str(initrd), "-append", append]
        data = [] if self.data_disk is None else [
            "-drive", f"file={self.data_disk},format=raw,if=none,id=data,cache=unsafe",
            "-device", "virtio-blk-pci,drive=data"]
        venue = [] if self.venue is None else [
            "-netdev", f"dgram,id=venue,local.type=unix,local.path={self.venue[1]},"
                       f"remote.type=unix,remote.path={self.venue[0]}",
            "-device", f"virtio-net-pci,netdev=venue,mac={self.venue[2]},romfile="]
        if self.console_stdio:
            console = ["-serial", "mon:stdio"]
        else:
            # A socket (attach with `socat - UNIX-CONNECT:console.sock`) that also logs everything.
            console = ["-chardev", f"socket,id=console,path={self.console_path},server=on,wait=off,"
                                   f"logfile={self.console_log}",
                       "-serial", "chardev:console"]
        return [
            "qemu-system-aarch64", "-M", machine, "-cpu", self.cpu, "-smp", str(self.smp),
            "-m", str(self.memory_mib), "-no-reboot", "-nodefaults", "-display", "none",
            *boot_args,
            "-drive", f"file={self.image},format=raw,if=none,id=root,cache=unsafe",
            "-device", "virtio-blk-pci,drive=root,bootindex=0", *data,
            "-netdev", f"user,id=uplink,hostfwd=tcp:127.0.0.1:{self.host_port}-:{GUEST_HTTP_PORT}",
            "-device", "virtio-net-pci,netdev=uplink,romfile=", *venue,
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=agent,path={self.agent_path},server=on,wait=off",
            "-device", f"virtserialport,chardev=agent,name={AGENT_PORT_NAME}",
            *console,
        ]

    def start(self):
        stale = [Path(self.venue[1])] if self.venue is not None else []
        for path in (self.agent_path, self.console_path, self.console_log, *stale):
            if path.exists():
                path.unlink()
        stdio = {} if self.console_stdio else {
            "stdin": subprocess.DEVNULL, "stdout": open(self.qemu_log, "wb"), "stderr": subprocess.STDOUT}
        self.process = subprocess.Popen(self.command_line(), preexec_fn=_die_with_parent, **stdio)
        if self.console_stdio:
            return
        deadline = time.monotonic() + 30
        while True:
            self._check_alive()
            try:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.connect(str(self.agent_path))
                return
            except OSError:
                self._sock.close()
                self._sock = None
                if time.monotonic() > deadline:
                    raise MachineError("QEMU did not open the agent socket within 30 s")
                time.sleep(0.1)

    def _check_alive(self):
        if self.process.poll() is not None:
            raise MachineError(f"QEMU exited with status {self.process.returncode} (see {self.qemu_log} "
                               f"and {self.console_log})")

    def _readline(self, deadline, what):
        while b"\n" not in self._buffer:
            self._check_alive()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise MachineError(f"timed out waiting for {what}")
            ready, _, _ = select.select([self._sock], [], [], min(remaining, 1.0))
            if ready:
                chunk = self._sock.recv(65536)
                if not chunk:
                    raise MachineError(f"agent channel closed while waiting for {what}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def wait_agent(self, timeout):
        """Waits for the agent's HELLO: userspace is up (systemd started it in sysinit)."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._readline(deadline, "the guest agent (boot)")
            if line.startswith("HELLO "):
                self.boot_id = line.split()[1]
                return

    def run(self, script, timeout=30):
        """Runs a shell script in the guest as root; returns its status and output."""
        request_id = self._next_id
        self._next_id += 1
        encoded = base64.b64encode(script.encode()).decode()
        self._sock.sendall(f"REQ {request_id} {int(timeout)} {encoded}\n".encode())
        deadline = time.monotonic() + timeout + 15
        while True:
            line = self._readline(deadline, f"guest command {script!r}")
            parts = line.split(" ")
            if parts[0] == "HELLO":
                raise MachineError("the guest agent restarted (guest rebooted or agent crashed)")
            if parts[0] == "RES" and len(parts) >= 3 and parts[1] == str(request_id):
                output = base64.b64decode(parts[3]) if len(parts) > 3 else b""
                return Result(int(parts[2]), output.decode("utf-8", "replace"))

    def wait_exit(self, timeout):
        """Waits for QEMU to exit (a guest reboot ends it: -no-reboot); False on timeout."""
        try:
            self.process.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def kill(self):
        """Pulls the power: SIGKILL to QEMU, nothing flushed by the guest."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def restart(self, boot_timeout=300):
        """Powers the same disk on again after QEMU ended (reboot or kill); waits for the agent.
        The console log of the previous boot is kept as console.log.N."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._buffer = b""
        n = 1
        while self.console_log.with_name(f"console.log.{n}").exists():
            n += 1
        if self.console_log.exists():
            self.console_log.rename(self.console_log.with_name(f"console.log.{n}"))
        self.start()
        self.wait_agent(timeout=boot_timeout)

    def poweroff(self, timeout=60):
        """Asks systemd to power off and waits for QEMU to exit; kills it after `timeout`."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self.run("systemctl --no-block poweroff", timeout=10)
        except (MachineError, OSError):
            pass
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def close(self):
        """Ends QEMU however it is doing; idempotent."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    def console_tail(self, lines=60, path=None):
        try:
            text = Path(path or self.console_log).read_text("utf-8", "replace")
        except OSError:
            return "(no console log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
