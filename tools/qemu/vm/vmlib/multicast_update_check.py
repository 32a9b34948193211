"""The multicast OTA check (docs/updates.md, "Multicast delivery"): one FLUTE transmission of a
signed bundle reaches two boxes, each losing 5 % of the frames on its own (vmlib/venue.py).
Box 1 is the VM the other checks used (after the A/B checks: slot B, version +vmtest.1); box 2
boots a fresh copy of the shipped image (slot A, the image's version). Each hears the bundle once,
has RAUC inspect it, installs it inside its window, reboots at its turn into the new slot and
marks it good; the data partition is kept."""
import json
import os
import shutil
import threading
import time
from datetime import datetime, timezone

from . import board_image
from .checks import CheckFailed, Context, IMAGE_ONLY, check, expect, mgmt
from .machine import Machine, MachineError
from .bundles import POLICY
from .update_checks import UPDATE_CHECKS, booted, config, update_status, write_config

CHANNEL = "updates"
GROUP, PORT = "239.255.77.1", 6000
# 10 Mbit/s: the rate two TCG-emulated boxes keep up with side by side on a 2-core machine. Since
# the files thread holds blocks in memory (docs/files.md) a box spends ≈ 0.6 ms of emulated CPU
# a packet (files + ingest threads; 1.2 ms before), ≈ 0.6 of a core at 10 Mbit/s; 20 Mbit/s
# would need more than the machine's two cores for the two boxes. Real boxes and the host
# benchmark take 20 (docs/performance.md, "FLUTE: receive cost per packet").
# GRANDSTAND_VM_MULTICAST_MBIT measures other rates.
RATE_BPS = int(float(os.environ.get("GRANDSTAND_VM_MULTICAST_MBIT", "10")) * 1_000_000)
SYMBOL, BLOCK, REPAIR = 1400, 200, 40   # 20 % repair: 5 % loss needs 10 of 40 on average
# 16 blocks round-robin: a box's capture once lost 86 packets in a row at 5 Mbit/s (a stalled
# reader, docs/capture.md), more than one block's 40 repairs in the order of the blocks.
INTERLEAVE = 16
LOSS = 0.05
MARKER = "/var/lib/grandstand/multicast-check-marker"
IMAGE_ONLY.add("update-multicast")
UPDATE_CHECKS.append("update-multicast")


# Box 2 boots in the background from the first of these checks on (vm.py): update-rollback
# waits through a reboot and the health minute with a core idle, which box 2's boot under TCG
# fills instead of adding ≈ 2 min to this check (earlier, the booted box would idle for longer).
BOOT_SECOND_FROM = ("update-rollback", "update-crash-loop", "update-power-cut", "update-multicast")


class SecondBox:
    """Box 2, a fresh copy of the shipped image on the venue segment: QEMU started here, on the
    harness's main thread (its parent-death signal follows the thread that started it), its boot
    waited for in a thread. `machine()` waits for it (agent up, service active) or raises the
    boot's failure."""

    def __init__(self, ctx):
        self.run_dir = ctx.vm.run_dir / "multicast"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.failure = None
        self.started = time.monotonic()
        self.booted_in = None
        self.vm = None
        self.thread = threading.Thread(target=self._boot, args=(ctx,), name="box-2-boot", daemon=True)
        try:   # a failure here is the check's to report, not the harness's (vm.py starts this between checks)
            # Its data partition grows into the extra space at first boot: the bundle is stored there.
            disk, _ = board_image.compose(ctx.shipped, self.run_dir, extra_mib=1024)
            self.vm = Machine(None, disk, self.run_dir, boot=ctx.shipped.boot(), venue=ctx.venue.nic(1),
                              cpu=ctx.vm.cpu, smp=ctx.vm.smp, memory_mib=ctx.vm.memory_mib)
            self.vm.start()
        except Exception as error:
            self.failure = error
            return
        self.thread.start()

    def _boot(self, ctx):
        try:
            self.vm.wait_agent(timeout=300)
            Context(self.vm, ctx.board).run(
                "for i in $(seq 300); do systemctl is-active -q grandstand.service && exit 0; sleep 1; done; exit 1", 330)
            self.booted_in = time.monotonic() - self.started
        except Exception as error:  # handed to the check, which reports it
            self.failure = error

    def machine(self, timeout=900):
        if self.thread.is_alive():
            self.thread.join(timeout)
        if self.thread.is_alive():
            raise CheckFailed(f"box 2 did not boot within {timeout} s")
        if self.failure is not None:
            raise CheckFailed(f"box 2 did not boot: {type(self.failure).__name__}: {self.failure}")
        return self.vm

    def console_tail(self, lines):
        return self.vm.console_tail(lines) if self.vm is not None else "(QEMU did not start)"

    def close(self):
        if self.thread.is_alive():
            self.thread.join(60)
        if self.vm is not None:
            self.vm.poweroff(timeout=30)
            self.vm.close()


def venue_interface(ctx, mac):
    name = ctx.run(f"ip -o link | awk -F': ' 'tolower($0) ~ /{mac.lower()}/ {{ print $2 }}'").output.strip()
    expect(name, f"no interface with the venue NIC's MAC {mac}: {ctx.run('ip -o link').output}")
    return name


def join_venue(ctx, mac, window):
    """Puts the box's capture on its venue NIC and turns on the update channel (restarts the daemon)."""
    interface = venue_interface(ctx, mac)
    ctx.run(f"ip link set {interface} up")
    settings = config(ctx)
    settings["network"]["interface"] = interface
    settings["update"] = {**POLICY["multicast"],
                          "multicast": {"channel": CHANNEL, "windows": [window], "maxViewers": 5, "staggerSeconds": 120}}
    write_config(ctx, settings)
    return settings["license"]


def multicast(ctx):
    try:
        return update_status(ctx).get("multicast") or {}
    except (CheckFailed, ValueError, OSError, MachineError):
        # A box rebooting at its turn: its agent's connection is reset (OSError) or closed
        # mid-command (MachineError); `follow` sees QEMU exit and powers it on again.
        return {}


def update_multicast(ctx):
    """One FLUTE transmission of a bundle at 10 Mbit/s with 5 % loss per box: both boxes install
    it and reboot into it at their turn; versions, verdicts and the data partition checked."""
    bundle = ctx.bundles.wait()["multicast"]
    version = f"{ctx.bundles.version}+vmtest.2"
    second = getattr(ctx, "second_box", None) or SecondBox(ctx)
    run_dir = second.run_dir
    files = run_dir / "files"
    files.mkdir(parents=True, exist_ok=True)
    shutil.copy(bundle, files / f"grandstand-{version}.raucb")
    start = datetime.now(timezone.utc)
    window = f"{start:%H:%M}-{(start.hour + 3) % 24:02d}:{start:%M}"
    venue = ctx.venue   # box 1 booted with its venue NIC (vm.py); the relay starts now
    expect(venue is not None, "the harness gave the VM no venue NIC")
    with venue:
        try:
            boxes = [ctx, Context(second.machine(), ctx.board)]
            for box in boxes:   # each box's own data-partition marker (box 1 may not have the A/B checks' one)
                box.run(f"head -c 4096 /dev/urandom | sha256sum > {MARKER}; sync")
            markers = [box.run(f"cat {MARKER}").output for box in boxes]
            before = [booted(box) for box in boxes]
            license = None
            for index, box in enumerate(boxes):
                license = join_venue(box, venue.mac(index), window)
            for box in boxes:
                wait(box, "the daemon back with the update channel", lambda m: m.get("channel") == CHANNEL, 120)
            # The headend announces first; the data starts once both boxes list the channel (they
            # join its group then: a box that joined late would miss the first blocks). SIGKILL:
            # no SAP deletion, the real sender announces the same channel again.
            license = ["--license", f"{license['venueName']}/{license['contentOwner']}/{license['appDeveloper']}"]
            channel = ["--files", f"{CHANNEL}@{GROUP}:{PORT}={files}"]
            announcer = venue.send(ctx.sender, license + channel + ["--announce-only"], log_name="announce")
            for index, box in enumerate(boxes):
                wait_channel(box, index)
            announcer.kill()
            interval = (SYMBOL + 44) * 8 / RATE_BPS
            sent = time.monotonic()
            sender = venue.send(ctx.sender, license + channel + [
                "--file-symbol-size", str(SYMBOL), "--file-block", str(BLOCK), "--file-repair", str(REPAIR),
                "--file-interleave", str(INTERLEAVE), "--file-interval", f"{interval:.6f}", "--count", "1"])
            if sender.wait(3600) != 0:   # (≈ 3 min for the 165 MiB bundle at 10 Mbit/s)
                raise CheckFailed(f"the sender failed: {(run_dir / 'send.log').read_text()[-2000:]}")
            transmission = time.monotonic() - sent
            relay = venue.stats()
            received = [reception(box) for box in boxes]
            print("  " + "\n  ".join(f"box {i + 1} received: {r}" for i, r in enumerate(received)), flush=True)
            for index, box in enumerate(boxes):   # one transmission: each box has the whole bundle now
                stored(box, index, files / f"grandstand-{version}.raucb", timeout=180)
            outcomes = follow(boxes, version, timeout=1200)
            for index, box in enumerate(boxes):
                expect(booted(box) != before[index], f"box {index + 1} still on slot {before[index]}")
                expect(box.run(f"cat {MARKER}", expect_ok=False).output == markers[index],
                       f"box {index + 1}: the data partition's marker changed or vanished")
        except CheckFailed as failure:
            raise CheckFailed(f"{failure}\nbox 2 console:\n{second.console_tail(30)}") from None
        finally:
            second.close()
            ctx.second_box = None
    size = bundle.stat().st_size
    losses = ", ".join(f"box {i + 1} lost {v['dropped'] / max(relay['frames'], 1):.1%}" for i, v in enumerate(relay["vms"]))
    ctx.facts["update-multicast"] = (
        f"box 2 booted {second.booted_in or 0:.0f} s after its start (in the background); "
        f"bundle {size / 2**20:.0f} MiB sent once in {transmission:.0f} s at {RATE_BPS / 1e6:.0f} Mbit/s "
        f"({relay['frames']} frames, {REPAIR}/{BLOCK} repair; {losses}); "
        + "; ".join(f"box {i + 1}: {o}" for i, o in enumerate(outcomes))
        + "; reception: " + " | ".join(f"box {i + 1}: {r}" for i, r in enumerate(received)))


def reception(box):
    """What a box's update channel got: each file's status and progress, the FLUTE counters that
    are not zero, and the capture's kernel drops (GET /api/v1/files/updates, /api/v1/stats)."""
    parts = []
    try:
        code, body = mgmt(box, "GET", f"/api/v1/files/{CHANNEL}")
        if code == 200:
            table = json.loads(body)
            parts += [f"{f.get('name')} {f.get('status')} {f.get('progress')}" + (f" ({f['error']})" if f.get("error") else "")
                      for f in table.get("files", [])]
            stats = table.get("stats") or {}
            parts.append(" ".join(f"{k}={v}" for k, v in sorted(stats.items()) if v))
            if table.get("lastStoreError"):
                parts.append(f"last store error: {table['lastStoreError']}")
        else:
            parts.append(f"files table: {code}")
        code, body = mgmt(box, "GET", "/api/v1/stats")
        if code == 200:
            total = (json.loads(body).get("total") or {})
            parts.append(" ".join(f"{k}={total.get(k)}" for k in ("pcap_received", "pcap_dropped_kernel", "pcap_dropped_interface")))
        parts.append(thread_cpu(box))
    except (CheckFailed, ValueError, OSError) as error:
        parts.append(f"unreadable: {error}")
    return "; ".join(p for p in parts if p)


def thread_cpu(box):
    """The daemon's CPU time per thread so far (utime + stime, /proc/PID/task/*/stat), largest
    first: which thread limits the rate a TCG-emulated box keeps up with."""
    out = box.run("p=$(systemctl show -p MainPID --value grandstand.service); for t in /proc/$p/task/*; do "
                  "echo \"$(cat $t/comm)\" $(sed 's/.*) //' $t/stat | awk '{ print $12 + $13 }'); done", expect_ok=False).output
    ticks = {}
    for line in out.splitlines():
        name, _, value = line.rpartition(" ")
        if name and value.isdigit():
            ticks[name] = ticks.get(name, 0) + int(value)
    top = sorted(ticks.items(), key=lambda item: -item[1])[:6]
    return "thread CPU " + ", ".join(f"{name} {value / 100:.0f} s" for name, value in top)


def stored(box, index, bundle, timeout):
    """Waits until box `index` lists the bundle complete in its update channel's table (the
    transmission has ended: what is missing now is missing for good)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, body = mgmt(box, "GET", f"/api/v1/files/{CHANNEL}")
        if code == 200 and any(f.get("name", "").endswith(bundle.name) and f.get("status") == "complete"
                               for f in json.loads(body).get("files", [])):
            return
        time.sleep(2)
    raise CheckFailed(f"box {index + 1} did not complete the bundle from the one transmission: {reception(box)}")


def wait_channel(box, index, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, body = mgmt(box, "GET", "/api/v1/channels")
        if code == 200:
            listed = json.loads(body)   # the channel table: a list (or {"channels": [...]})
            rows = listed.get("channels", []) if isinstance(listed, dict) else listed
            if any(isinstance(c, dict) and CHANNEL in (c.get("id"), c.get("name")) for c in rows):
                return
        time.sleep(1)
    raise CheckFailed(f"box {index + 1} did not list channel {CHANNEL!r} within {timeout} s\n{box.unit_log()}")


def wait(box, what, predicate, timeout):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = multicast(box)
        if predicate(last):
            return last
        time.sleep(2)
    raise CheckFailed(f"waited {timeout} s for {what}; multicast status: {last}\n{box.unit_log()}")


def follow(boxes, version, timeout):
    """Each box: heard and installed, rebooted (QEMU exits: -no-reboot) at its turn, powered on
    again, the new slot running `version` and marked good. Returns a line per box."""
    deadline = time.monotonic() + timeout
    state = [{"rebooted": None, "planned": None, "heard": None} for _ in boxes]
    started = time.monotonic()
    while time.monotonic() < deadline:
        done = True
        for box, s in zip(boxes, state):
            if s["rebooted"] is None:
                done = False
                if box.vm.process.poll() is not None:   # the box rebooted itself
                    s["rebooted"] = time.monotonic() - started
                    box.vm.restart(boot_timeout=300)
                    continue
                m = multicast(box)
                if m.get("verdict") in ("refused", "failed"):
                    path = (m.get("lastBundle") or {}).get("path", "")
                    rauc = box.run(f"busctl --timeout=120 call de.pengutronix.rauc / de.pengutronix.rauc.Installer "
                                   f"InspectBundle 'sa{{sv}}' '{path}' 0 2>&1", timeout=150, expect_ok=False).output
                    raise CheckFailed(f"the bundle was {m['verdict']}: {m.get('reason')}\nRAUC's InspectBundle of {path}: "
                                      f"{rauc[:1500]}\n{box.unit_log()}")
                s["heard"] = s["heard"] or ((m.get("lastBundle") or {}).get("version") and time.monotonic() - started)
                s["planned"] = m.get("rebootAt") or s["planned"]
            elif "good" not in s:
                done = False
                try:
                    status = update_status(box)
                except (CheckFailed, ValueError, OSError, MachineError):
                    continue
                running = next((x for x in status.get("slots", []) if x.get("state") == "booted"), {})
                if running.get("bootStatus") == "good" and running.get("version") == version:
                    s["good"] = time.monotonic() - started
        if done:
            return [f"bundle heard {s['heard'] or 0:.0f} s after the transmission, rebooted at "
                    f"{s['rebooted']:.0f} s (turn {s['planned']}), new slot good at {s['good']:.0f} s" for s in state]
        time.sleep(2)
    raise CheckFailed(f"after {timeout} s: {state}; box statuses: {[multicast(b) for b in boxes]}; "
                      f"receptions: {[reception(b) if s['rebooted'] is None else 'rebooted' for b, s in zip(boxes, state)]}")


# In the default run since 2026-11-28 (a fresh-clone `make check` with it measured in
# docs/flashing.md "Build times"); GRANDSTAND_VM_MULTICAST=0 leaves it out (≈ 10 min).
if os.environ.get("GRANDSTAND_VM_MULTICAST", "1") != "0":
    check("update-multicast")(update_multicast)
