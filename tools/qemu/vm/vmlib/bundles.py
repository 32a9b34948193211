"""Test update bundles for the A/B checks (vmlib/update_checks.py), built on the host while the VM
boots, and a small HTTP server (with Range requests: RAUC streams verity bundles) the guest
reaches at 10.0.2.2 (QEMU user networking's host address).

Every bundle carries the image's own root filesystem plus the harness's guest files
(board_image.test_rootfs); what makes the commit quick is the box's own config (its `update`
section, POLICY, written before each install: the slot hook carries it into the new slot, as it
carries an operator's settings, docs/updates.md "What an update keeps"):
  good      version VERSION+vmtest.1, policy health "running": marked good after 20 s; its /etc/motd
            gains a line (a default the box did not change: the new slot must show it)
  broken    version VERSION+vmtest.broken, policy health "up" (the VM has no channels: never
            up), rollback after 60 s: the release that fails health
  crash     version VERSION+vmtest.crash, /usr/bin/grandstand a script that exits 1 at once:
            the daemon never starts, so only systemd's OnFailure= rolls it back
  tampered  good with one payload byte changed
  foreign   good re-signed by another CA (tools/update/keys.sh other foreign)
  multicast good as version VERSION+vmtest.2 (newer than good), for the multicast OTA check
"""
import http.server
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

from . import board_image, image

REPO = image.REPO_DIR
GOOD_UPDATE = {"markGoodAfterSeconds": 20, "rollbackAfterSeconds": 240, "health": "running"}
BROKEN_UPDATE = {"markGoodAfterSeconds": 10, "rollbackAfterSeconds": 60, "health": "up"}
# The box's `update` section while each bundle is installed (and so on its trial boot).
POLICY = {"good": GOOD_UPDATE, "tampered": GOOD_UPDATE, "foreign": GOOD_UPDATE, "broken": BROKEN_UPDATE,
          "crash": GOOD_UPDATE, "multicast": GOOD_UPDATE}
CRASHING_BINARY = "#!/bin/sh\necho 'grandstand (vmtest crash bundle): exiting at start' >&2\nexit 1\n"
RELEASE_NOTE = "Grandstand vmtest.1: a new default of the release\n"


def _keys(*args):
    return Path(subprocess.run([str(REPO / "tools/update/keys.sh"), *args], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.strip())


class Bundles:
    """Builds the bundles in a thread (start()); wait() returns {name: path} or raises."""

    def __init__(self, shipped, run_dir, multicast=False, only_multicast=False):
        self.shipped = shipped
        self.dir = Path(run_dir) / "bundles"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.version = (REPO / "VERSION").read_text().strip()
        self.paths, self.error, self.seconds = {}, None, {}
        self.multicast = multicast or only_multicast
        self.only_multicast = only_multicast
        self._thread = threading.Thread(target=self._build, name="bundles", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def wait(self, timeout=1800):
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise RuntimeError("test bundles still building")
        if self.error:
            raise RuntimeError(f"test bundles: {self.error}")
        return self.paths

    def _bundle(self, name, version, extra=None):
        import time
        started = time.monotonic()
        rootfs = board_image.test_rootfs(self.shipped, self.dir, name, extra)
        out = self.dir / f"{name}.raucb"
        # One compressor thread at the lowest priority: the VM's timing checks run meanwhile.
        subprocess.run(["nice", "-n", "19", str(REPO / "tools/update/bundle.sh"), "--version", version, "qemu-virt",
                        str(rootfs), str(out)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env={**os.environ, "BUNDLE_MKSQUASHFS_ARGS": "-processors 1"})
        rootfs.unlink()
        self.seconds[name] = time.monotonic() - started
        return out

    def _build(self):
        try:
            if self.only_multicast:
                self.paths["multicast"] = self._bundle("multicast", f"{self.version}+vmtest.2")
                return
            motd = board_image.read_file(self.shipped.rootfs, "/etc/motd") + RELEASE_NOTE
            good = self._bundle("good", f"{self.version}+vmtest.1", {"/etc/motd": motd})
            self.paths["good"] = good
            tampered = self.dir / "tampered.raucb"
            shutil.copy(good, tampered)
            # One byte of the squashfs payload 4 MiB in: a block of rootfs.ext4 RAUC reads at the
            # start of its copy, where dm-verity refuses it (a byte a third in made the check read
            # ~300 MiB first; the refusal and what it leaves are the same).
            with open(tampered, "r+b") as f:
                f.seek(4 << 20)
                byte = f.read(1)
                f.seek(-1, 1)
                f.write(bytes([byte[0] ^ 0xFF]))
            self.paths["tampered"] = tampered
            dev, foreign = _keys(), _keys("other", "foreign")
            self.paths["foreign"] = self.dir / "foreign.raucb"
            subprocess.run(["rauc", "resign", "--cert", str(foreign / "signing.cert.pem"), "--key",
                            str(foreign / "signing.key.pem"), "--keyring", str(dev / "ca.cert.pem"),
                            "--signing-keyring", str(foreign / "ca.cert.pem"), str(good), str(self.paths["foreign"])],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            self.paths["broken"] = self._bundle("broken", f"{self.version}+vmtest.broken")
            if os.environ.get("GRANDSTAND_VM_LONG", "0") == "1":   # update-crash-loop's (update_checks.py)
                self.paths["crash"] = self._bundle("crash", f"{self.version}+vmtest.crash",
                                                   {"/usr/bin/grandstand": CRASHING_BINARY})
            if self.multicast:
                self.paths["multicast"] = self._bundle("multicast", f"{self.version}+vmtest.2")
        except subprocess.CalledProcessError as error:
            self.error = f"{error.cmd[0]} failed: {(error.stderr or b'').decode(errors='replace')[-800:]}"
        except Exception as error:  # reported by wait()
            self.error = f"{type(error).__name__}: {error}"


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Files of one directory, with single byte ranges (206), as RAUC's streaming needs. HTTP/1.0
    (the handler's default: a connection per request). With kept-alive connections (HTTP/1.1, as
    a CDN's) the streamed install of the 230 MiB bundle took 256 s through QEMU's user network,
    with a connection per request 181 s (quiet machine, 2026-11-27): RAUC streams a bundle as
    thousands of sequential range requests, and on a kept-alive connection each one stalls a
    little (most likely a response's last small segment held by Nagle's algorithm in QEMU's
    user-network TCP until the guest's delayed ACK; a closing connection flushes it)."""

    def log_message(self, *args):
        pass

    def send_head(self):
        self._remaining = None
        range_header = self.headers.get("Range")
        path = self.translate_path(self.path)
        if not range_header or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        first, _, last = range_header.removeprefix("bytes=").partition("-")
        start = int(first) if first else size - int(last)
        end = min(int(last), size - 1) if first and last else size - 1
        if start >= size or start > end:
            self.send_error(416)
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        self._remaining = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        remaining = getattr(self, "_remaining", None)
        if remaining is None:
            return super().copyfile(source, outputfile)
        while remaining > 0:
            chunk = source.read(min(1 << 20, remaining))
            if not chunk:
                break
            outputfile.write(chunk)
            remaining -= len(chunk)


class Server:
    """Serves a directory on 127.0.0.1 (the guest's 10.0.2.2) from a thread."""

    def __init__(self, directory):
        handler = lambda *a, **k: RangeHandler(*a, directory=str(directory), **k)  # noqa: E731
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, name="bundle-http", daemon=True).start()

    def url(self, name):
        return f"http://10.0.2.2:{self.port}/{name}.raucb"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
