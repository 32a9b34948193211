#!/usr/bin/env python3
"""Boots grandstand in a Debian arm64 VM (qemu-system-aarch64 -M virt, TCG) and checks it.

  vm.py test --binary BIN [--only a,b] [--keep]   build/reuse the base, install BIN, boot, run checks
  vm.py shell [--binary BIN]                      same image, serial console on this terminal
  vm.py base                                      build or find the cached base; print its directory
  vm.py list                                      the checks, in run order

Everything is cached under $GRANDSTAND_CACHE/vm (default .cache/vm); each test run's console
log, guest journal and QEMU output go to .cache/vm/logs/<time>/. See docs/qemu.md.
"""
import argparse
import json
import os
import shutil
import signal
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
from vmlib import board_image, bundles, checks, fleet_checks, image, multicast_update_check, update_checks  # noqa: E402
from vmlib.venue import VenueSegment  # noqa: E402
from vmlib.machine import Machine, MachineError  # noqa: E402

DEFAULT_BOARD = image.REPO_DIR / "board" / "qemu-virt" / "board.json"
KEEP_LOGS = 10


def say(message):
    print(f"[vm {time.strftime('%H:%M:%S')}] {message}", flush=True)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def new_dirs(cache):
    """A fresh run directory (disk image, sockets) and log directory; drops the run directories
    of harnesses that died without cleaning up, and all but the last KEEP_LOGS log directories."""
    if (cache / "runs").is_dir():
        for stale in (cache / "runs").iterdir():
            pid = stale.name.rpartition("-")[2]
            if not (pid.isdigit() and pid_alive(int(pid))):
                shutil.rmtree(stale, ignore_errors=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{os.getpid()}"
    run_dir = cache / "runs" / stamp
    log_dir = cache / "logs" / stamp
    run_dir.mkdir(parents=True)
    log_dir.mkdir(parents=True)
    logs = sorted((cache / "logs").iterdir())
    for old in logs[:-KEEP_LOGS]:
        shutil.rmtree(old, ignore_errors=True)
    return run_dir, log_dir


def wanted(args, name):
    """Whether check `name` is in this run (all registered checks when no --only)."""
    return (not args.only or name in args.only) and name in {n for n, _ in checks.CHECKS}


def prepare_board_image(args, cache):
    """The shipped qemu-virt image plus the guest files and a test data disk; returns
    (None, disk, run_dir, log_dir, timings, boot, data disk)."""
    timings = {}
    shipped = board_image.BoardImage(args.image)
    run_dir, log_dir = new_dirs(cache)
    started = time.monotonic()
    suite = (args.test_bundle, args.swift_runtime) if args.test_bundle else None
    debs = [d for d in (args.deb_previous, args.deb) if d]
    # The multicast check stores a bundle on the data partition: room for it.
    multicast = wanted(args, "update-multicast")
    disk, data = board_image.compose(shipped, run_dir, suite, debs, extra_mib=1024 if multicast else 0)
    args.shipped = shipped
    timings["image"] = time.monotonic() - started
    say(f"disk from {shipped.disk} ready ({timings['image']:.0f} s)")
    if not args.only or set(args.only) & set(update_checks.UPDATE_CHECKS):
        # built while the VM boots and checks run; only the multicast one when only its check runs
        only_multicast = bool(args.only) and set(args.only) & set(update_checks.UPDATE_CHECKS) == {"update-multicast"}
        args.bundles = bundles.Bundles(shipped, run_dir, multicast=multicast, only_multicast=only_multicast).start()
    return None, disk, run_dir, log_dir, timings, shipped.boot(), data


def prepare(args, cache):
    """Base + product image; returns (base, image, run_dir, log_dir, timings, boot, data disk)."""
    if args.image:
        return prepare_board_image(args, cache)
    timings = {}
    started = time.monotonic()
    base = image.build_base()
    timings["base"] = time.monotonic() - started
    say(f"base {base.name} ready ({timings['base']:.0f} s): {(base / 'info.txt').read_text().strip()}")
    run_dir, log_dir = new_dirs(cache)
    started = time.monotonic()
    suite = (args.test_bundle, args.swift_runtime) if args.test_bundle else None
    disk = image.compose(base, args.binary, args.board, run_dir, suite)
    timings["image"] = time.monotonic() - started
    say(f"image with {args.binary} and {args.board} ready ({timings['image']:.0f} s)")
    return base, disk, run_dir, log_dir, timings, None, None


def save_logs(vm, log_dir, with_journal):
    if with_journal:
        try:
            journal = vm.run("journalctl -b --no-pager -o short-monotonic", timeout=60)
            (log_dir / "journal.txt").write_text(journal.output)
        except (MachineError, OSError) as error:
            (log_dir / "journal.txt").write_text(f"could not read the guest journal: {error}\n")
    for path in (vm.console_log, vm.qemu_log, *sorted(vm.console_log.parent.glob("console.log.*"))):
        if path.exists():
            shutil.copy(path, log_dir / path.name)


def command_test(args, cache):
    started = time.monotonic()
    # "boot" always runs: the others assume a booted system.
    selected = [(n, f) for n, f in checks.CHECKS if not args.only or n in args.only or n == "boot"]
    if not args.image and any(n in checks.IMAGE_ONLY for n, _ in selected):
        say(f"not run (they need --image, `make test-vm-image`): {', '.join(sorted(checks.IMAGE_ONLY))}")
        selected = [(n, f) for n, f in selected if n not in checks.IMAGE_ONLY]
    unknown = set(args.only or []) - {n for n, _ in checks.CHECKS}
    if unknown:
        sys.exit(f"vm.py: unknown checks {sorted(unknown)}; see `vm.py list`")
    base, disk, run_dir, log_dir, timings, boot, data = prepare(args, cache)
    board = json.loads(Path(args.board).read_text())
    failures, agent_up, interrupted = [], False, False
    reasons = []  # each failed check's message, repeated at the end where CI tails show it
    # The multicast OTA check's venue segment: this VM is box 1 on it from power-on.
    venue = None
    if args.image and wanted(args, "update-multicast"):
        if not args.sender:
            sys.exit("vm.py: update-multicast needs --sender (the host's grandstand, the headend)")
        venue = VenueSegment(run_dir, vms=2, loss=multicast_update_check.LOSS)
    vm = Machine(base, disk, run_dir, cpu=args.cpu, smp=args.smp, memory_mib=args.memory, boot=boot, data_disk=data,
                 venue=venue.nic(0) if venue else None)
    ctx = None
    try:
        boot_started = time.monotonic()
        vm.start()
        say(f"QEMU started; console: socat -,raw,echo=0 UNIX-CONNECT:{vm.console_path}")
        vm.wait_agent(timeout=args.boot_timeout)
        agent_up = True
        timings["agent"] = time.monotonic() - boot_started
        say(f"guest agent up {timings['agent']:.0f} s after QEMU started (port {vm.host_port} -> guest 8080)")
        ctx = checks.Context(vm, board)
        ctx.second_box = None
        ctx.bundles = getattr(args, "bundles", None)
        ctx.server = bundles.Server(ctx.bundles.dir) if ctx.bundles else None
        ctx.venue, ctx.sender, ctx.shipped = venue, args.sender, getattr(args, "shipped", None)
        multicast_pending = venue is not None and any(n == "update-multicast" for n, _ in selected)
        for name, function in selected:
            check_started = time.monotonic()
            if multicast_pending and name in multicast_update_check.BOOT_SECOND_FROM:
                # The multicast check's box 2 boots beside box 1's later A/B checks (SecondBox).
                ctx.second_box = multicast_update_check.SecondBox(ctx)
                multicast_pending = False
                say("box 2 of update-multicast booting in the background")
            known = dict(ctx.facts)
            try:
                function(ctx)
                say(f"PASS {name} ({time.monotonic() - check_started:.1f} s)")
                for key in ("status-text", "exposure", "boot-order", "wifi", "reports", *fleet_checks.FLEET_CHECKS, *update_checks.UPDATE_CHECKS):  # measurements worth a line
                    if key in ctx.facts and ctx.facts[key] != known.get(key):
                        say(f"  {key}: {ctx.facts[key]}")
            except checks.CheckFailed as failure:
                failures.append(name)
                reasons.append(f"{name}: {failure}")
                say(f"FAIL {name} ({time.monotonic() - check_started:.1f} s): {failure}")
            except MachineError:
                raise
            except Exception as error:  # a broken check must not hide the others' verdicts
                failures.append(name)
                reasons.append(f"{name}: {type(error).__name__}: {error}")
                say(f"FAIL {name}: {type(error).__name__}: {error}")
            if name == "boot":
                timings["running"] = time.monotonic() - boot_started
                say(f"  {ctx.facts.get('startup', '')}")
            if name == "kernel-suite" and "kernel-suite" in ctx.facts:
                say(f"  {ctx.facts['kernel-suite']} Swift tests of live capture, GPIO and nl80211 passed in the guest")
    except MachineError as error:
        failures.append("machine")
        say(f"FAIL machine: {error}")
    except (KeyboardInterrupt, SystemExit):
        interrupted = True
        say("interrupted: stopping QEMU")
        vm.close()
        raise
    finally:
        alive = vm.process is not None and vm.process.poll() is None
        if ctx is not None and ctx.second_box is not None:
            ctx.second_box.close()   # booted for a multicast check that did not run
        if getattr(args, "bundles", None) is not None:
            say("test bundles built in " + ", ".join(f"{k} {v:.0f} s" for k, v in args.bundles.seconds.items()))
        save_logs(vm, log_dir, with_journal=agent_up and alive and not interrupted)
        if alive:
            vm.poweroff(timeout=30)
        vm.close()
        if venue is not None:
            venue.close()
        if not args.keep:
            shutil.rmtree(run_dir, ignore_errors=True)
    timings["total"] = time.monotonic() - started
    summary = ", ".join(f"{k} {v:.0f} s" for k, v in timings.items())
    if failures:
        say(f"console log tail ({log_dir / 'console.log'}):")
        print(vm.console_tail(40, log_dir / vm.console_log.name), flush=True)
        for reason in reasons:
            say(f"FAIL {reason}")
        say(f"FAILED: {', '.join(failures)}; logs in {log_dir} ({summary})")
        return 1
    say(f"all {len(selected)} checks passed ({summary}); logs in {log_dir}")
    return 0


def command_shell(args, cache):
    boot = data = None
    if args.binary or args.image:
        base, disk, run_dir, _log_dir, _, boot, data = prepare(args, cache)
    else:
        base = image.build_base()
        run_dir, _log_dir = new_dirs(cache)
        disk = image.compose(base, None, None, run_dir)
    vm = Machine(base, disk, run_dir, cpu=args.cpu, smp=args.smp, memory_mib=args.memory, console_stdio=True,
                 boot=boot, data_disk=data)
    say(f"booting; root shell on this console (Ctrl-A X quits QEMU); guest :8080 is 127.0.0.1:{vm.host_port}")
    try:
        vm.start()
        vm.process.wait()
    finally:
        vm.close()
        if not args.keep:
            shutil.rmtree(run_dir, ignore_errors=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["test", "shell", "base", "list"])
    parser.add_argument("--binary", type=Path, help="the aarch64 grandstand to install")
    parser.add_argument("--image", type=Path,
                        help="boot this qemu-virt image (make image BOARD=qemu-virt) instead of base + --binary")
    parser.add_argument("--deb", type=Path, help="the image's grandstand .deb (for the deb-upgrade check)")
    parser.add_argument("--deb-previous", type=Path, help="build N-1 of the .deb (for the deb-upgrade check)")
    parser.add_argument("--board", type=Path, default=DEFAULT_BOARD, help="board.json to install")
    parser.add_argument("--test-bundle", type=Path,
                        help="cross-built PackageTests.xctest to run the kernel-facility tests in the guest")
    parser.add_argument("--swift-runtime", type=Path, help="the arm64 Swift runtime libraries the bundle links")
    parser.add_argument("--sender", type=Path, help="the host's grandstand: the headend of the multicast OTA check")
    parser.add_argument("--only", type=lambda s: s.split(","), help="comma-separated checks to run")
    parser.add_argument("--keep", action="store_true", help="keep the run's disk image")
    parser.add_argument("--cpu", default=os.environ.get("GRANDSTAND_VM_CPU", "cortex-a57"))
    parser.add_argument("--smp", type=int, default=int(os.environ.get("GRANDSTAND_VM_SMP", "2")))
    parser.add_argument("--memory", type=int, default=int(os.environ.get("GRANDSTAND_VM_MEMORY", "1024")))
    parser.add_argument("--boot-timeout", type=float, default=300)
    args = parser.parse_args()
    # SIGTERM (CI timeouts, make being stopped) unwinds like Ctrl-C, so QEMU is always ended.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cache = image.default_cache()
    if args.command == "list":
        for name, function in checks.CHECKS:
            print(f"{name:20} {' '.join((function.__doc__ or '').split())}")
        return 0
    if args.command == "base":
        print(image.build_base())
        return 0
    if args.command == "test" and not (args.binary or args.image):
        parser.error("test needs --image (make image BOARD=qemu-virt) or --binary (the aarch64 grandstand)")
    if args.test_bundle and not (args.swift_runtime and (args.swift_runtime / "libswiftCore.so").is_file()):
        parser.error("--test-bundle needs --swift-runtime DIR (the sysroot's usr/libexec/swift/lib/swift/linux)")
    if args.binary and not args.binary.is_file():
        parser.error(f"{args.binary} does not exist (build it with `make cross`)")
    try:
        return command_test(args, cache) if args.command == "test" else command_shell(args, cache)
    except image.ImageError as error:
        say(f"error: {error}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
