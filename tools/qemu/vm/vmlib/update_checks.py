"""A/B update checks on the booted qemu-virt image (docs/updates.md), after every other check:
they reboot the VM. Bundles come from vmlib/bundles.py over HTTP (RAUC streams them); the
guest's `grandstand update install` drives the daemon, which drives RAUC over D-Bus. Each
reboot ends QEMU (-no-reboot) and the harness powers the same disk on again."""
import json
import os
import re
import subprocess
import time

from . import board_image
from .bundles import POLICY, RELEASE_NOTE
from .checks import RESTART, CheckFailed, IMAGE_ONLY, check, expect, mgmt

UPDATE_CHECKS = ["update-slots", "update-refused", "update-http", "update-rollback", "update-crash-loop", "update-power-cut"]
IMAGE_ONLY.update(UPDATE_CHECKS)
ROLLED_BACK_ID = "b03c8db9e25046f7b14f3c92fb6ed23e"
COMMITTED_ID = "da4f20d574c645068e468f6a4e4bfc7f"
ROLLING_BACK_ID = "170129e9bde0421abd31b83413d6e7ea"
GRUBENV_RESTORED_ID = "5b044afcf8d6459f87c17de177074497"
MARKER = "/var/lib/grandstand/update-check-marker"
GRUBENV = "/boot/efi/EFI/BOOT/grubenv"


def update_status(ctx):
    status, body = mgmt(ctx, "GET", "/api/v1/update")
    if status != 200:
        raise CheckFailed(f"GET /api/v1/update answered {status}: {body}")
    return json.loads(body)


def slot(status, name):
    return next((s for s in status.get("slots", []) if s["name"] == name), {})


def wait_for(ctx, what, predicate, timeout):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = update_status(ctx)
            if predicate(last):
                return last
        except (CheckFailed, ValueError) as error:
            last = str(error)
        time.sleep(2)
    raise CheckFailed(f"waited {timeout} s for {what}; last update status: {last}\n{ctx.unit_log()}")


def config(ctx):
    return json.loads(ctx.run("cat /etc/grandstand/config.json").output)


def write_config(ctx, settings, restart=True):
    """The box's /etc/grandstand/config.json, as an operator writes it (restart: applied now)."""
    ctx.run("cat > /etc/grandstand/config.json <<'EOF'\n" + json.dumps(settings, indent=2) + "\nEOF\n"
            + (RESTART if restart else "sync"), timeout=60)


def set_policy(ctx, name, restart=False):
    """The box's `update` section for installing bundle `name` (bundles.POLICY): the slot hook
    carries the box's config into the new slot, so it governs the trial boot there."""
    settings = config(ctx)
    settings["update"] = {**POLICY[name], **({"multicast": settings["update"]["multicast"]}
                                              if "multicast" in settings.get("update", {}) else {})}
    write_config(ctx, settings, restart=restart)


def identity(ctx):
    """What the box made its own (docs/updates.md "What an update keeps")."""
    return {"machine-id": ctx.run("cat /etc/machine-id").output.strip(),
            "ssh host key": ctx.run("sha256sum < /etc/ssh/ssh_host_ed25519_key.pub", expect_ok=False).output.strip(),
            "config.json": config(ctx)}


def booted(ctx):
    match = re.search(r"rauc\.slot=(\S+)", ctx.run("cat /proc/cmdline").output)
    return match.group(1) if match else None


def grubenv(ctx):
    return dict(line.split("=", 1) for line in ctx.run(f"grub-editenv {GRUBENV} list").output.splitlines() if "=" in line)


def reboot_and_wait(ctx, timeout=240):
    """QEMU ends when the guest reboots (-no-reboot); power on again. Returns (seconds until QEMU
    exited, seconds from power-on until the daemon answers)."""
    started = time.monotonic()
    expect(ctx.vm.wait_exit(timeout), f"the guest did not reboot within {timeout} s:\n{ctx.vm.console_tail(30)}")
    down = time.monotonic() - started
    started = time.monotonic()
    ctx.vm.restart(boot_timeout=300)
    wait_active(ctx, 180)
    return down, time.monotonic() - started


def wait_active(ctx, timeout):
    # The agent starts in sysinit: the data partition (the token) and the daemon come later.
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            if mgmt(ctx, "GET", "/api/v1/update")[0] == 200:
                return
        except CheckFailed as error:
            last = error
        time.sleep(1)
    raise CheckFailed(f"grandstand not answering {timeout} s after boot ({last}):\n{ctx.unit_log()}")


def install(ctx, name, *, expect_ok=True, timeout=900):
    """`grandstand update install URL` in the guest, waiting for the outcome (no reboot)."""
    url = ctx.server.url(name)
    started = time.monotonic()
    result = ctx.run(f"grandstand update install --install-timeout {timeout} {url}", timeout=timeout + 30, expect_ok=False)
    seconds = time.monotonic() - started
    if expect_ok and not result.ok:
        raise CheckFailed(f"installing {url} failed ({result.status}):\n{result.output}\n{ctx.unit_log()}")
    return result, seconds


INSTALL_LOG = "/var/lib/grandstand/update-check-install.log"


def install_and_reboot(ctx, name, timeout=900):
    """`grandstand update install --reboot URL` started in the background (the guest reboots under
    the agent); its output and start/end times land on the data partition. Returns (install
    seconds, seconds until QEMU exited, seconds from power-on until the daemon answers)."""
    set_policy(ctx, name)
    url = ctx.server.url(name)
    ctx.run(f"rm -f {INSTALL_LOG}; nohup sh -c 'date +%s.%N > {INSTALL_LOG}; "
            f"grandstand update install --reboot --install-timeout {timeout} {url} >> {INSTALL_LOG} 2>&1; "
            f"echo \"exit $? $(date +%s.%N)\" >> {INSTALL_LOG}; sync' >/dev/null 2>&1 &")
    down, up = reboot_and_wait(ctx, timeout=timeout + 120)
    log = ctx.run(f"cat {INSTALL_LOG}", expect_ok=False).output.strip().splitlines()
    ended = [line.split() for line in log if line.startswith("exit ")]
    expect(log and ended and ended[-1][1] == "0", "the install before the reboot did not succeed:\n" + "\n".join(log))
    seconds = float(ended[-1][2]) - float(log[0])
    return seconds, down, up


@check("update-slots")
def update_slots(ctx):
    """The A/B image booted slot A through UEFI and GRUB, RAUC sees both slots, the data
    partition is on /var/lib/grandstand, and the daemon marks the booted slot good."""
    expect(booted(ctx) == "A", f"booted {booted(ctx)!r}, expected slot A: {ctx.run('cat /proc/cmdline').output}")
    source = ctx.run("findmnt -no SOURCE,FSTYPE /var/lib/grandstand").output.split()
    label = ctx.run(f"lsblk -no PARTLABEL {source[0] if source else '/dev/null'}", expect_ok=False).output.strip()
    expect(label == "data" and source[1:] == ["ext4"], f"/var/lib/grandstand is {source} ({label!r}), not the data partition")
    rauc = json.loads(ctx.run("rauc status --output-format=json 2>/dev/null", timeout=60).output)
    expect(rauc.get("compatible") == "grandstand-qemu-virt" and rauc.get("booted") == "A",
           f"rauc status: compatible {rauc.get('compatible')!r}, booted {rauc.get('booted')!r}")
    # A short hold so the check does not wait the default 120 s (the bundles carry their own).
    settings = config(ctx)
    settings["update"] = {"markGoodAfterSeconds": 10, "rollbackAfterSeconds": 600}
    write_config(ctx, settings)
    status = wait_for(ctx, "slot rootfs.0 marked good", lambda s: slot(s, "rootfs.0").get("bootStatus") == "good", 120)
    env = grubenv(ctx)
    expect(env.get("A_OK") == "1" and env.get("A_TRY") == "0", f"grubenv after mark-good: {env}")
    ctx.run(f"head -c 4096 /dev/urandom | sha256sum > {MARKER}; sync")
    ctx.facts["marker"] = ctx.run(f"cat {MARKER}").output
    # systemd keeps the board's hardware watchdog armed (RuntimeWatchdogSec): a hung slot resets.
    watchdog = ctx.run("cd /sys/class/watchdog/watchdog0 && echo $(cat identity state timeout)", expect_ok=False).output.strip()
    expect("active" in watchdog.split(), f"the hardware watchdog is not armed: {watchdog!r}")
    ctx.facts["update-slots"] = f"booted {status.get('bootedSlot')}, grubenv {env}, watchdog {watchdog}"


def marker_kept(ctx):
    expect(ctx.run(f"cat {MARKER}", expect_ok=False).output == ctx.fact("marker"),
           "the data partition's marker file changed or vanished")


@check("update-refused")
def update_refused(ctx):
    """A tampered bundle and one signed by a foreign CA are refused with a clear error; the
    boot order, the booted slot and the data stay as they were."""
    ctx.bundles.wait()
    before = grubenv(ctx)
    expected = {"tampered": ("verity", "hash", "signature", "corrupt", "Input/output", "squashfs", "mount", "copy", "read"),
                "foreign": ("signature", "verif", "certificate")}
    for name, words in expected.items():
        result, _ = install(ctx, name, expect_ok=False)
        expect(not result.ok, f"the {name} bundle was installed:\n{result.output}")
        expect(any(w.lower() in result.output.lower() for w in words),
               f"the {name} bundle's refusal names none of {words}:\n{result.output}")
        ctx.facts[f"refused-{name}"] = next((line for line in result.output.splitlines() if "refused" in line),
                                            result.output.strip())[:240]
        status = update_status(ctx)
        expect(status["last"]["result"] == "failed", f"last result after the {name} bundle: {status['last']}")
    after = grubenv(ctx)
    expect(after.get("ORDER") == before.get("ORDER") and after.get("A_OK") == "1" and after.get("B_OK") != "1",
           f"the refused bundles changed the boot selection: {before} -> {after}")
    expect(booted(ctx) == "A", "no longer on slot A")
    marker_kept(ctx)
    ctx.facts["update-refused"] = f"tampered: {ctx.facts['refused-tampered']}; foreign: {ctx.facts['refused-foreign']}"


@check("update-http")
def update_http(ctx):
    """The good bundle over HTTP: installed into slot B, rebooted, slot B runs the new version,
    the daemon marks it good (journaled), the data partition is intact, the box's own machine
    id, SSH host key and config came along and the release's new default arrived."""
    bundles = ctx.bundles.wait()
    set_policy(ctx, "good")
    own = identity(ctx)
    seconds, down, up = install_and_reboot(ctx, "good")
    expect(booted(ctx) == "B", f"booted {booted(ctx)!r} after the update, expected B")
    marker_kept(ctx)
    kept = identity(ctx)
    for what in own:
        expect(kept[what] == own[what], f"the update did not keep the box's {what}: {own[what]!r} -> {kept[what]!r}")
    motd = ctx.run("cat /etc/motd", expect_ok=False).output
    expect(RELEASE_NOTE.strip() in motd, f"the new release's /etc/motd did not arrive: {motd!r}")
    version = f"{ctx.bundles.version}+vmtest.1"
    status = wait_for(ctx, "slot rootfs.1 marked good", lambda s: slot(s, "rootfs.1").get("bootStatus") == "good", 180)
    expect(slot(status, "rootfs.1").get("version") == version, f"slot rootfs.1: {slot(status, 'rootfs.1')}")
    expect(status["last"] and status["last"]["result"] == "committed", f"last result: {status['last']}")
    expect(ctx.journal(COMMITTED_ID, wait=10), f"no update-committed entry (MESSAGE_ID={COMMITTED_ID})")
    # A fleet's Prometheus sees the same: slot B booted and good with the version, the result.
    code, metrics = mgmt(ctx, "GET", "/metrics")
    expect(code == 200, f"GET /metrics answered {code}")
    for line in (f'grandstand_update_slot_info{{slot="rootfs.1",bootname="B",state="booted",boot_status="good",version="{version}"}} 1',
                 f'grandstand_update_last_result{{result="committed",version="{version}"}} 1'):
        expect(line in metrics.splitlines(), f"/metrics lacks {line}: {[l for l in metrics.splitlines() if 'update' in l]}")
    size = bundles["good"].stat().st_size
    ctx.facts["update-http"] = (f"bundle {size / 2**20:.0f} MiB, install {seconds:.0f} s (streamed over HTTP), "
                                f"install end to QEMU exit {down - seconds:.0f} s, power-on to service answering {up:.0f} s; "
                                f"version {version}")


@check("update-rollback")
def update_rollback(ctx):
    """A release whose daemon never gets healthy (health "up", no channels in the VM) is
    installed into slot A, booted on trial, given up by the daemon after 60 s and rolled back
    to slot B by GRUB; the rollback is journaled with its MESSAGE_ID; the data is intact."""
    ctx.bundles.wait()
    install_and_reboot(ctx, "broken")
    expect(booted(ctx) == "A", f"the broken release did not boot on trial (booted {booted(ctx)!r})")
    started = time.monotonic()
    down, up = reboot_and_wait(ctx, timeout=240)   # the daemon gives up after rollbackAfterSeconds (60)
    expect(booted(ctx) == "B", f"booted {booted(ctx)!r} after the rollback, expected B")
    entries = ctx.journal(ROLLED_BACK_ID, wait=30)
    expect(entries, f"no update-rolled-back entry (MESSAGE_ID={ROLLED_BACK_ID}):\n{ctx.unit_log()}")
    status = update_status(ctx)
    expect(status["last"] and status["last"]["result"] == "rolled-back", f"last result: {status['last']}")
    env = grubenv(ctx)
    expect(env.get("A_OK") == "0", f"slot A not marked bad: {env}")
    marker_kept(ctx)
    # The box's policy asked for health "up" for the broken release's trial (it is B's own config
    # too); back to "running": B, on trial again since the rollback boot, is committed.
    set_policy(ctx, "good", restart=True)
    wait_for(ctx, "slot rootfs.1 good again after the rollback", lambda s: slot(s, "rootfs.1").get("bootStatus") == "good", 180)
    ctx.facts["update-rollback"] = (f"trial boot gave up and back on B {time.monotonic() - started:.0f} s after the trial "
                                    f"boot answered: {entries[-1].get('MESSAGE')}")


# Not in the default run since stop 31 (CI time: its install of a whole bundle, two boots and the
# start-limit wait are ≈ 6.5 min of the VM stage on a CI machine); GRANDSTAND_VM_LONG=1 adds it
# (docs/qemu.md). The OnFailure path it drives is unchanged since it last passed in CI (stop 30).
CRASH_LOOP = os.environ.get("GRANDSTAND_VM_LONG", "0") == "1"


def update_crash_loop(ctx):
    """A release whose daemon exits at start (the daemon's own rollback never runs): systemd gives
    up after its start limit, grandstand-service-failed marks the trial slot bad and reboots; the
    box is back on slot B with the rollback journaled and the data intact."""
    ctx.bundles.wait()
    expect(booted(ctx) == "B", f"update-crash-loop starts on slot B, not {booted(ctx)!r}")
    wait_for(ctx, "slot rootfs.1 good before the install", lambda s: slot(s, "rootfs.1").get("bootStatus") == "good", 120)
    set_policy(ctx, "crash")
    url = ctx.server.url("crash")
    ctx.run(f"rm -f {INSTALL_LOG}; nohup sh -c 'grandstand update install --reboot --install-timeout 900 {url} "
            f"> {INSTALL_LOG} 2>&1; sync' >/dev/null 2>&1 &")
    expect(ctx.vm.wait_exit(1020), f"the guest did not reboot after the install:\n{ctx.vm.console_tail(30)}")
    trial = time.monotonic()
    ctx.vm.restart(boot_timeout=300)
    expect(booted(ctx) == "A", f"the crashing release did not boot on trial (booted {booted(ctx)!r})")
    if not ctx.vm.wait_exit(600):   # (the guest's journal only while it still runs)
        raise CheckFailed("the trial slot did not reboot by itself within 600 s:\n" + ctx.run(
            "journalctl -b -u grandstand.service -u grandstand-service-failed.service --no-pager | tail -n 30",
            expect_ok=False).output)
    down = time.monotonic() - trial
    ctx.vm.restart(boot_timeout=300)
    wait_active(ctx, 180)
    back = time.monotonic() - trial
    expect(booted(ctx) == "B", f"booted {booted(ctx)!r} after the crash loop, expected B")
    # The helper journaled on slot A, whose journal is on its own root (/var/log/journal): read it there.
    rolling = journal_any(ctx, ROLLING_BACK_ID, "GRANDSTAND_REASON=service-failed", slot_root="rootfs.0")
    expect(rolling, f"no update-rolling-back entry of grandstand-service-failed (MESSAGE_ID={ROLLING_BACK_ID}) "
                    "in slot A's journal")
    rolled = ctx.journal(ROLLED_BACK_ID, wait=30)
    expect(rolled, f"no update-rolled-back entry (MESSAGE_ID={ROLLED_BACK_ID}):\n{ctx.unit_log()}")
    env = grubenv(ctx)
    expect(env.get("A_OK") == "0", f"slot A not marked bad: {env}")
    marker_kept(ctx)
    ctx.facts["update-crash-loop"] = (f"trial boot (power-on into A) to the rollback reboot {down:.0f} s, to the daemon "
                                      f"answering on B {back:.0f} s: {rolling[-1].get('MESSAGE')}")


if CRASH_LOOP:
    check("update-crash-loop")(update_crash_loop)


# Where update-power-cut pulls the power (GRANDSTAND_VM_POWER_CUT_AT, comma-separated, default
# trial), by the bytes the guest's block layer has written to the target slot
# (/sys/class/block/vda2/stat) out of the slot image's size: early just after RAUC marked the
# slot bad and began to copy, middle half way, late at 90 % (the end of the copy and RAUC's
# mark-active come too fast to poll for: if RAUC had marked the slot active, it must boot). trial cuts early while the booted slot B is itself on trial (B_TRY=1,
# as right after a rollback: the daemon does not commit while installing), the state of the
# first power-cut run that booted the half-written slot (docs/updates.md). torn cuts early and
# then zeroes grubenv on the host, as a torn write would leave it: GRUB must boot from
# grubenv.bak and the repair unit must put it back. Each: (share written, B on trial, torn).
POWER_CUT_AT = {"early": (0.0, False, False), "middle": (0.5, False, False), "late": (0.9, False, False),
                "trial": (0.0, True, False), "torn": (0.0, False, True)}


def esp_file(disk, path):
    """(bytes or None, mtools' error) of a file on the disk image's ESP, read on the host with
    mtools: what GRUB finds after a power cut, not the guest's page cache."""
    start, _ = board_image.partitions(disk)["esp"]
    proc = subprocess.run(["mtype", "-i", f"{disk}@@{start}", f"::{path}"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env={**os.environ, "MTOOLS_SKIP_CHECK": "1"})
    return (proc.stdout if proc.returncode == 0 else None), proc.stderr.decode(errors="replace").strip()


def esp_write(disk, path, data):
    """Replaces a file on the disk image's ESP (mtools, on the host, with QEMU stopped)."""
    start, _ = board_image.partitions(disk)["esp"]
    subprocess.run(["mcopy", "-o", "-i", f"{disk}@@{start}", "-", f"::{path}"], input=data, check=True,
                   stdout=subprocess.DEVNULL, env={**os.environ, "MTOOLS_SKIP_CHECK": "1"})


def parse_grubenv(data):
    """GRUB's environment block (grub-core/lib/envblk.c): a 1024-byte file starting with the
    signature line; None when GRUB's load_env would refuse it."""
    if data is None or len(data) != 1024 or not data.startswith(b"# GRUB Environment Block\n"):
        return None
    text = data.decode("ascii", "replace").split("\n")[1:]
    return dict(line.split("=", 1) for line in text if "=" in line and not line.startswith("#"))


def journal_any(ctx, message_id, *matches, slot_root=None):
    """Entries with MESSAGE_ID (and the field matches) of any unit and any boot (the journal is
    persistent): the root helpers journal outside grandstand.service. slot_root: read the journal
    of that (not booted) slot instead, mounted read-only: each slot keeps its own /var/log/journal."""
    query = f"journalctl -o json --no-pager MESSAGE_ID={message_id} {' '.join(matches)}"
    if slot_root:
        query = (f"mkdir -p /run/gs-slot && mount -o ro /dev/disk/by-partlabel/{slot_root} /run/gs-slot && "
                 f"{query} -D /run/gs-slot/var/log/journal; umount /run/gs-slot")
    output = ctx.run(query, expect_ok=False).output
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def sectors_written(ctx, partition):
    return int(ctx.run(f"cat /sys/class/block/{partition}/stat").output.split()[6])


@check("update-power-cut")
def update_power_cut(ctx):
    """QEMU killed while RAUC writes the other slot (A after update-http): the box boots the slot
    it ran (or the new one if RAUC had already marked it active), a half-written slot is not
    bootable, grubenv is readable, the data partition is intact.
    GRANDSTAND_VM_POWER_CUT_AT: the points, comma-separated, one cut each (default trial)."""
    ctx.bundles.wait()
    points = os.environ.get("GRANDSTAND_VM_POWER_CUT_AT", "trial").split(",")
    expect(set(points) <= set(POWER_CUT_AT), f"GRANDSTAND_VM_POWER_CUT_AT={points}: each one of {sorted(POWER_CUT_AT)}")
    results = []
    for at in points:
        started = time.monotonic()
        results.append(power_cut(ctx, at) + f" ({time.monotonic() - started:.0f} s)")
        print(f"  power cut {results[-1]}", flush=True)
    ctx.facts["update-power-cut"] = "; ".join(results)


def power_cut(ctx, at):
    old = booted(ctx)
    new, partition = ("A", "vda2") if old == "B" else ("B", "vda3")
    ctx.run("head -c 4096 /dev/urandom | sha256sum > /var/lib/grandstand/power-cut-file; sync")
    written = ctx.run("cat /var/lib/grandstand/power-cut-file").output
    total = ctx.bundles.shipped.rootfs.stat().st_size
    share, trial, torn = POWER_CUT_AT[at]
    if trial:   # the daemon committed the slot once this boot and does not again: it stays on trial
        ctx.run(f"grub-editenv {GRUBENV} set {old}_TRY=1")
    set_policy(ctx, "good")
    before = sectors_written(ctx, partition)
    ctx.run(f"grandstand update install --no-wait {ctx.server.url('good')}", timeout=60)
    started = time.monotonic()
    deadline, fraction = started + 900, 0.0
    while time.monotonic() < deadline:
        fraction = (sectors_written(ctx, partition) - before) * 512 / total
        if fraction > share:
            break
        time.sleep(0.5)
    else:
        raise CheckFailed(f"slot {new}'s copy did not pass {share:.0%} in 900 s:\n{ctx.unit_log()}")
    status = update_status(ctx)
    ctx.vm.kill()
    cut = time.monotonic() - started
    data, error = esp_file(ctx.vm.image, "EFI/BOOT/grubenv")
    on_disk = parse_grubenv(data)
    # RAUC done (slot marked active: first in ORDER, OK=1) before the cut: the new slot is whole and boots.
    done = bool(on_disk) and on_disk.get(f"{new}_OK") == "1" and on_disk.get("ORDER", "").startswith(new)
    expected = new if done else old
    if torn:
        esp_write(ctx.vm.image, "EFI/BOOT/grubenv", bytes(1024))
    ctx.vm.restart(boot_timeout=300)
    wait_active(ctx, 180)
    up = time.monotonic() - started - cut
    expect(booted(ctx) == expected, f"booted {booted(ctx)!r} after the power cut ({at}: {fraction:.0%} of slot {new} "
                                    f"written; grubenv on disk after the kill: {on_disk or error}), expected {expected}")
    env = grubenv(ctx)
    expect(done or env.get(f"{new}_OK") != "1", f"slot {new} bootable after the power cut: {env}")
    marker_kept(ctx)
    expect(ctx.run("cat /var/lib/grandstand/power-cut-file", expect_ok=False).output == written,
           "the file written on the data partition just before the install changed or vanished")
    # Back in service: the daemon commits the booted slot (its boot after the cut was a try).
    name = "rootfs.0" if expected == "A" else "rootfs.1"
    wait_for(ctx, f"slot {name} marked good", lambda s: slot(s, name).get("bootStatus") == "good", 120)
    restored = journal_any(ctx, GRUBENV_RESTORED_ID, "-b")
    expect(restored or not torn, f"no grubenv-restored entry (MESSAGE_ID={GRUBENV_RESTORED_ID}) after the torn grubenv")
    return (f"{at}: killed {cut:.0f} s into the install at {fraction:.0%} of slot {new} written "
            f"(RAUC: {status['progress']}, {old} {slot(status, 'rootfs.0' if old == 'A' else 'rootfs.1').get('bootStatus')}); "
            f"grubenv on disk {on_disk or 'UNREADABLE: ' + error}{', then zeroed on the host' if torn else ''}"
            f"{'; restored from grubenv.bak' if restored else ''}; power-on to service answering {up:.0f} s on {expected}"
            f"{' (RAUC had finished: the new slot is whole)' if done else ''}")
