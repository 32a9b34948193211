"""The venue's multicast segment for booted-VM checks (docs/qemu.md, "Venue segment").

A headend (`grandstand send`, the host build) sends on gsvh0 of a veth pair inside a private
network namespace; venue-relay.py reads the frames on gsvh1 and hands each to every VM's second
NIC (QEMU `-netdev dgram` over unix datagram sockets), each VM losing frames independently. The
guests see real multicast frames on a real virtio NIC: their libpcap capture, IGMP and FLUTE
receiver run as on a venue's network. Needs root (network namespaces, AF_PACKET).
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from .image import REPO_DIR

RELAY = REPO_DIR / "tools/qemu/vm/venue-relay.py"
HEADEND_ADDRESS = "10.77.0.1"


def _ip(*args):
    subprocess.run(["ip", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


class VenueSegment:
    """`with VenueSegment(run_dir, vms=2, loss=0.05) as venue:` then `Machine(..., venue=venue.nic(i))`,
    `venue.send([...])`, `venue.stats()`."""

    def __init__(self, run_dir, *, vms, loss, seed=1):
        self.run_dir = Path(run_dir)
        self.namespace = f"gsvenue{os.getpid()}"
        # AF_UNIX paths are limited to 107 bytes: a short private directory.
        self.socket_dir = Path(tempfile.mkdtemp(prefix="gsvenue-"))
        self.relay_socket = self.socket_dir / "relay.sock"
        self.vm_sockets = [self.socket_dir / f"vm{i}.sock" for i in range(vms)]
        self.loss, self.seed = loss, seed
        self.stats_path = self.run_dir / "venue-relay.json"
        self.relay = None
        self.senders = []

    def nic(self, index):
        """(relay socket, VM socket, MAC) for Machine(venue=...)."""
        return (str(self.relay_socket), str(self.vm_sockets[index]), self.mac(index))

    @staticmethod
    def mac(index):
        """The venue NIC's MAC of VM `index` (the guest finds its interface by it)."""
        return f"52:54:00:76:65:{index + 1:02x}"

    def start(self):
        _ip("netns", "add", self.namespace)
        _ip("-n", self.namespace, "link", "set", "lo", "up")
        _ip("-n", self.namespace, "link", "add", "gsvh0", "type", "veth", "peer", "name", "gsvh1")
        _ip("-n", self.namespace, "addr", "add", f"{HEADEND_ADDRESS}/24", "dev", "gsvh0")
        for link in ("gsvh0", "gsvh1"):
            _ip("-n", self.namespace, "link", "set", link, "up")
        command = ["ip", "netns", "exec", self.namespace, "python3", str(RELAY), "--iface", "gsvh1",
                   "--socket", str(self.relay_socket), "--loss", str(self.loss), "--seed", str(self.seed),
                   "--stats", str(self.stats_path)]
        for path in self.vm_sockets:
            command += ["--vm", str(path)]
        log = open(self.run_dir / "venue-relay.log", "wb")
        self.relay = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log)
        # The relay says so once its sockets are bound (QEMU needs the remote path to exist).
        line = self.relay.stdout.readline().decode(errors="replace")
        if not line.startswith("venue-relay:"):
            raise RuntimeError(f"venue relay did not start: {line!r}; see {self.run_dir / 'venue-relay.log'}")
        return self

    def send(self, binary, arguments, log_name="send"):
        """Starts `grandstand send --interface gsvh0 ARGUMENTS` in the namespace (the headend)."""
        log = open(self.run_dir / f"{log_name}.log", "wb")
        process = subprocess.Popen(["ip", "netns", "exec", self.namespace, str(binary), "send", "--interface", "gsvh0",
                                    *arguments], stdout=log, stderr=subprocess.STDOUT)
        self.senders.append(process)
        return process

    def stats(self):
        """Stops the relay and returns its counts (frames, bytes, per VM delivered/dropped)."""
        if self.relay is not None and self.relay.poll() is None:
            self.relay.send_signal(signal.SIGTERM)
            self.relay.wait(10)
        try:
            return json.loads(self.stats_path.read_text())
        except (OSError, ValueError):
            return None

    def close(self):
        for process in [*self.senders, self.relay]:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        subprocess.run(["ip", "netns", "del", self.namespace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.socket_dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


def wait_until(what, predicate, timeout, interval=2):
    """Polls `predicate` (the guest's state) until it returns a truthy value; raises on timeout."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"waited {timeout} s for {what}")
