"""The checks `make test-vm` runs against the booted VM, in order.

Each check is a function taking the Context; it raises CheckFailed with a readable reason.
To add one: write `@check("name")` above a function here (order of definition is run order;
put checks that need a running daemon before "stop"; another module's checks say
`@check("name", before="stop")`, e.g. fleet_checks.py). Use ctx.vm.run(script) for guest
commands, ctx.service() for the unit's properties, ctx.journal(...) for structured entries.
"""
import json
import re
import subprocess
import time

SERVICE = "grandstand.service"
READY_ID = "27219f69265740d896896acd9489e1fc"
STOPPING_ID = "4b72d99bb2234fe3b7889315cafbfe33"
CAP_NET_RAW = 1 << 13

CHECKS = []
# Checks that need the shipped image and its packages (vm.py test --image …).
IMAGE_ONLY = {"deb-upgrade"}


class CheckFailed(Exception):
    """A check's verdict: what was expected and what the guest showed."""


def check(name, before=None):
    """Registers a check, run in definition order; `before` puts it ahead of an earlier-defined
    one (checks of another module that need the running daemon go before "stop")."""
    def register(function):
        at = next((i for i, (n, _) in enumerate(CHECKS) if n == before), len(CHECKS))
        CHECKS.insert(at, (name, function))
        return function
    return register


class Context:
    """What checks share: the machine, the board under test, and facts earlier checks found."""

    def __init__(self, vm, board):
        self.vm = vm
        self.board = board            # the parsed board.json installed in the image
        self.facts = {}

    def fact(self, name):
        """A fact an earlier check recorded; a clear failure when that check did not get there."""
        if name not in self.facts:
            raise CheckFailed(f"needs {name!r}, which an earlier check did not establish")
        return self.facts[name]

    def run(self, script, timeout=30, expect_ok=True):
        result = self.vm.run(script, timeout)
        if expect_ok and not result.ok:
            raise CheckFailed(f"`{script}` exited {result.status}:\n{result.output}")
        return result

    def service(self, *properties):
        """The unit's properties as a dict (systemctl show)."""
        args = " ".join(f"-p {p}" for p in properties)
        output = self.run(f"systemctl show {SERVICE} {args}").output
        return dict(line.split("=", 1) for line in output.splitlines() if "=" in line)

    def journal(self, message_id, *, wait=0.0):
        """This boot's entries of the unit with MESSAGE_ID, as dicts (journalctl -o json)."""
        deadline = time.monotonic() + wait
        while True:
            output = self.run(f"journalctl -b -o json --no-pager _SYSTEMD_UNIT={SERVICE} "
                              f"MESSAGE_ID={message_id}").output
            entries = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
            if entries or time.monotonic() >= deadline:
                return entries
            time.sleep(1)

    def unit_log(self, lines=40):
        return self.vm.run(f"journalctl -b -u {SERVICE} --no-pager -o short-monotonic | tail -n {lines}").output

    def led_lines(self):
        """{(chip, offset): (consumer, 'out hi'|'out lo'|'in …')} for every requested GPIO line,
        from /sys/kernel/debug/gpio (it lists only requested lines, with direction and level)."""
        return parse_debugfs_gpio(self.run("cat /sys/kernel/debug/gpio").output)

    def led_key(self, led):
        spec = self.board["leds"][led]
        return (spec["chip"], spec["line"])

    def gpio_high_as_is(self, led):
        """Whether the LED's line is physically high, read through the character device
        (libgpiod 2.x gpioget, no active-low flag) without turning it into an input."""
        chip, line = self.led_key(led)
        output = self.run(f"gpioget --as-is --numeric -c {chip} {line}").output.strip()
        if output not in ("0", "1"):
            raise CheckFailed(f"gpioget printed {output!r}, expected 0 or 1")
        return output == "1"


def parse_debugfs_gpio(text):
    """/sys/kernel/debug/gpio text → {(chip, offset): (consumer, 'out hi'|'out lo'|'in …')}."""
    lines, chip, first = {}, None, 0
    for row in text.splitlines():
        header = re.match(r"^(gpiochip\d+): GPIOs (\d+)-", row)
        if header:
            chip, first = header.group(1), int(header.group(2))
            continue
        m = re.match(r"^\s*gpio-(\d+)\s+\(([^|]*)\|([^)]*)\)\s+(in|out)\s+(hi|lo)", row)
        if m and chip is not None:
            lines[(chip, int(m.group(1)) - first)] = (m.group(3).strip(), f"{m.group(4)} {m.group(5)}")
    return lines


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


@check("boot")
def boot(ctx):
    """systemd reaches `running`: every unit of the default target started, none failed."""
    state = ctx.run("systemctl is-system-running --wait", timeout=300, expect_ok=False).output.strip()
    ctx.facts["startup"] = ctx.run("systemd-analyze time | head -n1", expect_ok=False).output.strip()
    if state != "running":
        failed = ctx.run("systemctl --failed --no-legend --plain", expect_ok=False).output
        raise CheckFailed(f"system state {state!r}; failed units:\n{failed}")


@check("service-active")
def service_active(ctx):
    """Type=notify unit is active: the daemon sent READY=1 (and a STATUS= text)."""
    props = ctx.service("Type", "ActiveState", "SubState", "MainPID", "NRestarts", "StatusText",
                        "WatchdogUSec", "WatchdogTimestampMonotonic")
    if props.get("ActiveState") != "active":
        raise CheckFailed(f"{SERVICE} is {props.get('ActiveState')}/{props.get('SubState')}:\n{ctx.unit_log()}")
    ctx.facts["pid"] = props["MainPID"]
    ctx.facts["watchdog"] = props.get("WatchdogTimestampMonotonic")
    expect(props.get("Type") == "notify", f"Type={props.get('Type')}, expected notify")
    expect(props.get("NRestarts") == "0", f"the daemon restarted {props.get('NRestarts')} times:\n{ctx.unit_log()}")
    expect(props.get("StatusText"), "no STATUS= text from the daemon")


@check("status-text")
def status_text(ctx):
    """sd_notify STATUS=: `systemctl status` shows the daemon's one-line summary — service state,
    reasons with the blink code, channels, venue, listeners (docs/health.md)."""
    pattern = (r"^(up|down \([a-z, -]+(; blink code \d)?\)), \d+ channels?, (in|out of) venue; "
               r"serving fans on \S+, management on \S+$")
    deadline = time.monotonic() + 40
    while True:
        text = ctx.service("StatusText").get("StatusText", "")
        if re.match(pattern, text) and "not-running" not in text:
            break
        expect(time.monotonic() < deadline, f"StatusText {text!r} is not the health summary (expected /{pattern}/)")
        time.sleep(2)
    shown = ctx.run(f"systemctl status {SERVICE} --no-pager --lines=0", expect_ok=False).output
    expect(f'Status: "{text}"' in shown, f"systemctl status does not show the STATUS= line {text!r}:\n{shown}")
    ctx.facts["status-text"] = text


@check("service-sandbox")
def service_sandbox(ctx):
    """The daemon runs as user grandstand with group gpio and only CAP_NET_RAW."""
    pid = ctx.fact("pid")
    status = dict(line.split(":", 1) for line in ctx.run(f"cat /proc/{pid}/status").output.splitlines() if ":" in line)
    uid = ctx.run("id -u grandstand").output.strip()
    gpio_gid = ctx.run("getent group gpio | cut -d: -f3").output.strip()
    expect(status["Uid"].split()[0] == uid, f"daemon Uid {status['Uid'].split()}, expected grandstand ({uid})")
    expect(gpio_gid in status["Groups"].split(), f"daemon groups {status['Groups'].split()} lack gpio ({gpio_gid})")
    expect(int(status["CapEff"], 16) == CAP_NET_RAW, f"CapEff {status['CapEff'].strip()}, expected CAP_NET_RAW only")
    expect(status["NoNewPrivs"].strip() == "1", "NoNewPrivs is not set")


@check("unit-security")
def unit_security(ctx):
    """`systemd-analyze security` rates the unit OK or better: overall exposure below 5.0
    (systemd's scale: <1 SAFE, <5 OK, <7.5 MEDIUM, <9 EXPOSED, else UNSAFE/DANGEROUS), and the
    running daemon's capability sets hold CAP_NET_RAW only (docs/security.md)."""
    output = ctx.run(f"systemd-analyze security {SERVICE} --no-pager", timeout=120, expect_ok=False).output
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", output)
    expect(found, f"no overall exposure in systemd-analyze security output:\n{output[-1500:]}")
    exposure, label = float(found.group(1)), found.group(2)
    ctx.facts["exposure"] = f"{exposure} {label}"
    flagged = [line.strip() for line in output.splitlines() if "✗" in line]
    expect(exposure < 5.0 and label in ("OK", "SAFE", "PERFECT"),
           f"exposure {exposure} {label}, expected OK or better (< 5.0); flagged:\n" + "\n".join(flagged[:25]))
    pid = ctx.fact("pid")
    status = dict(line.split(":", 1) for line in ctx.run(f"cat /proc/{pid}/status").output.splitlines() if ":" in line)
    for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        value = int(status[field], 16)
        expect(value in ((0, CAP_NET_RAW) if field == "CapInh" else (CAP_NET_RAW,)),
               f"{field} {status[field].strip()}, expected CAP_NET_RAW only ({CAP_NET_RAW:016x})")


LEDS_UNAVAILABLE_ID = "fc361e6d9b7f44dca462df71a9d49d80"
LEDS_AVAILABLE_ID = "34afe8781efd4522af162bfc4ea5f2e9"
LEDS_HELD_ID = "1f02bdc844b148988687228cd99ec126"


@check("leds-boot-order")
def leds_boot_order(ctx):
    """Boot race: the unit is ordered after the board's GPIO chips (Wants=/After= on
    dev-gpiochipN.device; the udev rule sets group gpio and TAG+=systemd, so the device unit is
    active only once the rule applied), so the boot's first daemon holds its LEDs at once: it
    journals leds-held naming every LED of the board and no leds-unavailable. Only when the device
    wait timed out may the LEDs come later, from the 5 s retry (leds-available)."""
    props = ctx.service("After", "Wants", "ExecMainStartTimestampMonotonic")
    started = int(props["ExecMainStartTimestampMonotonic"])
    late = []
    for chip in sorted({spec["chip"] for spec in ctx.board["leds"].values()}):
        unit = f"dev-{chip}.device"
        expect(unit in props["After"].split() and unit in props["Wants"].split(),
               f"{SERVICE} is not ordered after {unit}: After={props['After']!r} Wants={props['Wants']!r}")
        device = ctx.run(f"systemctl show {unit} -p ActiveState -p ActiveEnterTimestampMonotonic").output
        values = dict(line.split("=", 1) for line in device.splitlines() if "=" in line)
        expect(values.get("ActiveState") == "active", f"{unit}: {values}")
        if not 0 < int(values["ActiveEnterTimestampMonotonic"]) <= started:
            # Only legitimate when the wait gave up: udev took longer than the device job's
            # timeout (DefaultDeviceTimeoutSec, 90 s; a heavily loaded emulated boot).
            timed_out = ctx.run(f"journalctl -b --no-pager -o cat -u {unit} | grep -i 'timed out'", expect_ok=False).output.strip()
            expect(timed_out, f"{unit} became active at {values['ActiveEnterTimestampMonotonic']} µs, after the daemon "
                              f"started at {started} µs, without the device wait timing out")
            late.append(unit)
    pid = ctx.fact("pid")
    board_leds = sorted(ctx.board["leds"])

    def held_by(message_id, wait):
        """The logical LEDs this boot's daemon (its PID) journaled under message_id, and the entries."""
        entries = [e for e in ctx.journal(message_id, wait=wait) if e.get("_PID") == pid]
        return sorted({name for e in entries for name in e.get("GRANDSTAND_LEDS", "").split(",") if name}), entries

    unavailable = [e for e in ctx.journal(LEDS_UNAVAILABLE_ID) if e.get("_PID") == pid]
    if late and unavailable:
        # The fallback: the 5 s retry picked the chip up once udev had set it up.
        at_start, _ = held_by(LEDS_HELD_ID, 0)
        retried, _ = held_by(LEDS_AVAILABLE_ID, 20)
        expect(sorted(set(at_start) | set(retried)) == board_leds,
               f"{', '.join(late)} timed out; the daemon held {at_start} at start and {retried} on a retry, "
               f"expected {board_leds}:\n{ctx.unit_log()}")
        ctx.facts["boot-order"] = f"{', '.join(late)} appeared after the device timeout; the retry took {retried}"
        return
    expect(not unavailable, f"the boot's daemon logged leds-unavailable: {unavailable[0].get('MESSAGE') if unavailable else ''}")
    held, entries = held_by(LEDS_HELD_ID, 20)
    expect(entries, f"the boot's daemon (PID {pid}) logged no leds-held (MESSAGE_ID={LEDS_HELD_ID}) within 20 s:\n{ctx.unit_log()}")
    expect(held == board_leds, f"the boot's daemon held {held} at start, expected every LED of the board {board_leds}")
    if late:
        # The wait gave up, but udev had set the chip up by the time the daemon started.
        ctx.facts["boot-order"] = f"{', '.join(late)} timed out, yet the chip was ready: leds-held {','.join(held)} at start"
    else:
        ctx.facts["boot-order"] = f"GPIO chips set up by udev before the daemon started; leds-held {','.join(held)} at start"


@check("gpio-permissions")
def gpio_permissions(ctx):
    """The udev rule gives the board's GPIO chips to group gpio, mode 0660."""
    for chip in sorted({spec["chip"] for spec in ctx.board["leds"].values()}):
        owner = ctx.run(f"stat -c '%G %a' /dev/{chip}").output.strip()
        expect(owner == "gpio 660", f"/dev/{chip} is {owner!r}, expected 'gpio 660'")


@check("journal-persistent")
def journal_persistent(ctx):
    """journald keeps the journal on disk (Storage=persistent from rootfs-overlay)."""
    path = "/var/log/journal/$(cat /etc/machine-id)/system.journal"
    result = ctx.run(f"journalctl --flush && test -s {path} && echo {path}", expect_ok=False)
    expect(result.ok, f"no persistent journal: {result.output}")


@check("ready-journal")
def ready_journal(ctx):
    """The ready event is in the journal with its structured fields."""
    entries = ctx.journal(READY_ID, wait=5)
    expect(entries, f"no MESSAGE_ID={READY_ID} entry from {SERVICE}:\n{ctx.unit_log()}")
    entry = entries[-1]
    wanted = {"SYSLOG_IDENTIFIER": "grandstand", "GRANDSTAND_EVENT": "ready",
              "GRANDSTAND_BOARD": ctx.board["name"], "_PID": ctx.fact("pid")}
    wrong = {k: entry.get(k) for k, v in wanted.items() if entry.get(k) != v}
    expect(not wrong, f"ready entry fields {wrong}, expected {wanted}")
    expect(entry.get("GRANDSTAND_VERSION"), "ready entry has no GRANDSTAND_VERSION")


@check("led-lines-held")
def led_lines_held(ctx):
    """The daemon holds the board's LED lines as outputs, and the service LED shows the state the
    management API reports: lit when up, dark when down (the fault LED blinks the code then)."""
    # A slow boot can start the daemon before udev gives the chip to group gpio: it retries
    # every 5 s, so wait for the lines rather than fail on the first look.
    deadline = time.monotonic() + 40
    while True:
        lines = ctx.led_lines()
        if all(lines.get(ctx.led_key(n), ("",))[0] == "grandstand" for n in ctx.board["leds"]):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(2)
    leds = ctx.board["leds"]
    for name in leds:
        key = ctx.led_key(name)
        expect(key in lines, f"{name} LED {key} is not requested: {lines}\n{ctx.unit_log()}")
        consumer, state = lines[key]
        expect(consumer == "grandstand", f"{name} LED {key} consumer {consumer!r}, expected 'grandstand'")
        expect(state.startswith("out"), f"{name} LED {key} is {state}, expected an output")
    chip, line = ctx.led_key("service")
    info = ctx.run(f"gpioinfo -c {chip} {line}").output
    expect(re.search(r'\boutput\b.*\bconsumer="?grandstand"?', info), f"gpioinfo disagrees: {info}")
    service = wait_service(ctx, lambda s: "not-running" not in s["reasons"], 30, "the first evaluation as running")
    lit = led_lit(ctx, ctx.led_lines(), "service")
    expect(lit == (service["state"] == "up"), f"service LED lit={lit} but the service is {service}")


@check("http-health")
def http_health(ctx):
    """GET /health on the fan listener answers 200 JSON with "status", from the host through
    QEMU user networking (host-forwarded loopback port)."""
    url = f"http://127.0.0.1:{ctx.vm.host_port}/health"
    deadline = time.monotonic() + 60
    while True:
        proc = subprocess.run(["curl", "-sS", "--max-time", "10", "-w", "\n%{http_code}", url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        body, _, code = proc.stdout.rpartition("\n")
        if proc.returncode == 0 and code == "200":
            break
        if time.monotonic() > deadline:
            raise CheckFailed(f"{url}: curl status {proc.returncode}, HTTP {code!r}, {proc.stderr.strip()} {body[:200]}")
        time.sleep(2)
    try:
        document = json.loads(body)
    except ValueError as error:
        raise CheckFailed(f"{url} body is not JSON ({error}): {body[:200]}")
    expect(isinstance(document, dict) and "status" in document, f"{url} JSON has no \"status\": {body[:200]}")


@check("watchdog")
def watchdog(ctx):
    """The daemon keeps petting the watchdog (WATCHDOG=1 at least every WatchdogSec/2)."""
    props = ctx.service("WatchdogUSec")
    expect(props.get("WatchdogUSec") == "30s", f"WatchdogUSec={props.get('WatchdogUSec')}, expected 30s")
    first = ctx.fact("watchdog")
    deadline = time.monotonic() + 20
    while ctx.service("WatchdogTimestampMonotonic")["WatchdogTimestampMonotonic"] == first:
        expect(time.monotonic() < deadline, "no WATCHDOG=1 within 20 s (WatchdogSec=30)")
        time.sleep(2)


@check("reload")
def reload(ctx):
    """`systemctl reload` (SIGHUP) keeps the same process running."""
    ctx.run(f"systemctl reload {SERVICE}", timeout=60)
    time.sleep(2)
    props = ctx.service("ActiveState", "MainPID", "NRestarts")
    expect(props["ActiveState"] == "active" and props["MainPID"] == ctx.fact("pid") and props["NRestarts"] == "0",
           f"after reload: {props} (was MainPID={ctx.fact('pid')}):\n{ctx.unit_log()}")


MANAGEMENT = "http://127.0.0.1:8081"
TOKEN_FILE = "/var/lib/grandstand/management-token"


@check("management-api")
def management_api(ctx):
    """The token generated at first start (0600, user grandstand) opens the management API: the
    CLI reads it, /metrics is Prometheus text, /api/v1/logs reads this boot's ready entry through
    sd-journal inside the sandbox, and PUT /api/v1/config can rewrite /etc/grandstand."""
    mode = ctx.run(f"stat -c '%U %a %s' {TOKEN_FILE}", expect_ok=False)
    expect(mode.ok and mode.output.split()[:3] == ["grandstand", "600", "65"],
           f"{TOKEN_FILE}: {mode.output.strip()!r}, expected 'grandstand 600 65'")
    status = ctx.run("grandstand status --json", expect_ok=False)
    expect(status.ok and '"status":"up"' in status.output, f"grandstand status: {status.output[-400:]}")
    auth = f"-H \"Authorization: Bearer $(cat {TOKEN_FILE})\""
    metrics = ctx.run(f"curl -sS --max-time 10 {auth} {MANAGEMENT}/metrics").output
    expect("\ngrandstand_up 1\n" in metrics, f"/metrics lacks grandstand_up 1: {metrics[:300]}")
    denied = ctx.run(f"curl -s -o /dev/null -w '%{{http_code}}' --max-time 10 {MANAGEMENT}/metrics").output.strip()
    expect(denied == "401", f"/metrics without the token answered {denied}, expected 401")
    logs = ctx.run(f"curl -sS --max-time 10 {auth} '{MANAGEMENT}/api/v1/logs?messageId={READY_ID}&limit=5'").output
    entries = [json.loads(line) for line in logs.splitlines() if line.startswith("{")]
    expect(any(e.get("_PID") == ctx.fact("pid") and e.get("GRANDSTAND_EVENT") == "ready" for e in entries),
           f"/api/v1/logs has no ready entry of PID {ctx.fact('pid')}: {logs[:400]}")
    cli = ctx.run(f"grandstand logs --message-id {READY_ID} -n 5", expect_ok=False)
    expect(cli.ok and " notice ready: " in cli.output, f"grandstand logs: {cli.output[-400:]}")
    shown = ctx.run(f"curl -sS --max-time 10 {auth} {MANAGEMENT}/api/v1/config").output
    expect('"logLevel"' in shown, f"/api/v1/config: {shown[:300]}")
    put = ctx.run(f"curl -sS --max-time 10 {auth} -X PUT --data-binary @- -w '\\n%{{http_code}}' {MANAGEMENT}/api/v1/config "
                  f"<<'JSON'\n{shown}\nJSON").output
    expect(put.rstrip().endswith("200"), f"PUT /api/v1/config of the same document: {put[-400:]}")
    owner = ctx.run("stat -c '%G %a' /etc/grandstand /etc/grandstand/config.json").output.split("\n")
    expect(owner[0].strip() == "grandstand 770", f"/etc/grandstand is {owner[0]!r}, expected 'grandstand 770'")


# Every management route (docs/management.md); the fan listener must serve none of them.
MANAGEMENT_ROUTES = [
    ("GET", "/api/v1/status"), ("GET", "/api/v1/health"), ("GET", "/api/v1/version"), ("GET", "/api/v1/channels"),
    ("GET", "/api/v1/stats"), ("GET", "/metrics"), ("GET", "/api/v1/logs"), ("GET", "/api/v1/log-level"),
    ("PUT", "/api/v1/log-level"), ("GET", "/api/v1/config"), ("PUT", "/api/v1/config"), ("GET", "/api/v1/leds"),
    ("POST", "/api/v1/leds/locate"), ("POST", "/api/v1/leds/test"), ("POST", "/api/v1/debug/fault"),
    ("GET", "/api/v1/events"),
]


@check("management-security")
def management_security(ctx):
    """Issue 10: every management route answers 401 without the token or with a wrong one; the
    fan listener (:8080) answers 404 for every management path, even with the token; the token
    file is 0600 and owned by the service user (docs/security.md)."""
    token = ctx.run(f"cat {TOKEN_FILE}").output.strip()
    script = "\n".join(
        f"echo {method} {path} "
        f"$(curl -s -o /dev/null -w '%{{http_code}}' -m 10 -X {method} {MANAGEMENT}{path}) "
        f"$(curl -s -o /dev/null -w '%{{http_code}}' -m 10 -X {method} -H 'Authorization: Bearer wrong' {MANAGEMENT}{path}) "
        f"$(curl -s -o /dev/null -w '%{{http_code}}' -m 10 -H 'Authorization: Bearer {token}' http://127.0.0.1:8080{path})"
        for method, path in MANAGEMENT_ROUTES)
    rows = [line.split() for line in ctx.run(script, timeout=120).output.splitlines() if line.strip()]
    wrong = [" ".join(row) for row in rows if row[2:] != ["401", "401", "404"]]
    expect(len(rows) == len(MANAGEMENT_ROUTES) and not wrong,
           "expected 'no token 401, wrong token 401, fan listener 404' for every route; got:\n" + "\n".join(wrong or map(" ".join, rows)))
    mode = ctx.run(f"stat -c '%U %G %a' {TOKEN_FILE}").output.split()
    expect(mode[0] == "grandstand" and mode[2] == "600", f"{TOKEN_FILE} is {mode}, expected owner grandstand, mode 600")


@check("journal-gatewayd")
def journal_gatewayd(ctx):
    """systemd-journal-gatewayd listens on the management side only (127.0.0.1:19531, drop-in in
    rootfs-overlay) and serves the daemon's entries: GET /entries through the guest."""
    listening = ctx.run("ss -ltnH 'sport = :19531'").output.split()
    addresses = [word for word in listening if word.endswith(":19531")]
    expect(addresses == ["127.0.0.1:19531"], f"journal-gatewayd listens on {addresses}, expected only 127.0.0.1:19531")
    output = ctx.run(f"curl -sS --max-time 10 -H 'Accept: application/json' "
                     f"'http://127.0.0.1:19531/entries?MESSAGE_ID={READY_ID}'").output
    entries = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    expect(any(e.get("GRANDSTAND_EVENT") == "ready" for e in entries),
           f"GET /entries?MESSAGE_ID={READY_ID} has no ready entry: {output[:400]}")


# Service state, LED patterns and the watchdog (docs/health.md). The daemon boots down in the VM
# (no channels, no wlan0: wifi-down, blink code 2); "led-steady-up" installs a config with a
# static channel and no Wi-Fi to bring it up; "watchdog-restart" hangs the capture loop through
# the debug-only fault route and waits for systemd to restart the daemon; "health-restore" puts
# the image's config back (later checks expect it).
CONFIG = "/etc/grandstand/config.json"
DEBUG_ENV = "/etc/default/grandstand"
SERVICE_UP_ID = "fa5af90925e74c9a951e3f65cb560a84"
SERVICE_DOWN_ID = "7157912a35264f74a887543d9fdb43e2"
FAULT_ID = "810f20dde8d640878b712669f2dcc8c5"


def mgmt(ctx, method, path):
    """(HTTP status, body) of a management API call made inside the guest with the config's token."""
    config = json.loads(ctx.run(f"cat {CONFIG}").output)
    token = (config.get("management") or {}).get("token")
    if not token:  # a generated token lives in the state directory
        token = ctx.run("cat /var/lib/grandstand/management-token").output.strip()
    host, _, port = config.get("listeners", {}).get("management", "127.0.0.1:8081").rpartition(":")
    host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    result = ctx.run(f"curl -sS -m 10 -X {method} -H 'Authorization: Bearer {token}' -w '\\n%{{http_code}}' "
                     f"'http://{host}:{port}{path}'", expect_ok=False)
    body, _, code = result.output.rpartition("\n")
    return (int(code) if code.isdigit() else 0), body


def service_state(ctx):
    status, body = mgmt(ctx, "GET", "/api/v1/status")
    if status != 200:
        return None
    return json.loads(body).get("service")


def wait_service(ctx, predicate, timeout, what):
    """The status API's `service` object once `predicate` holds; a clear failure otherwise."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = service_state(ctx)
        except ValueError:
            last = None
        if last and predicate(last):
            return last
        time.sleep(1)
    raise CheckFailed(f"waited {timeout} s for {what}; service state {last}:\n{ctx.unit_log()}")


def led_lit(ctx, lines, led):
    """Whether `led` is lit in a parsed debugfs table (None when grandstand does not hold it)."""
    entry = lines.get(ctx.led_key(led))
    if not entry or entry[0] != "grandstand" or not entry[1].startswith("out"):
        return None
    return (entry[1] == "out hi") != ctx.board["leds"][led]["activeLow"]


def trace_leds(ctx, seconds, before=""):
    """What the LED lines did for `seconds`: ({led: lit|None} read back from debugfs at the start,
    [(kernel time, led, lit)] for every level the kernel drove onto them, from the gpio:gpio_value
    tracepoint). Exact timing even when TCG makes polling slow. `before` runs once tracing is on."""
    script = (f"T=/sys/kernel/tracing; [ -e $T/events/gpio/gpio_value/enable ] || T=/sys/kernel/debug/tracing\n"
              "echo 0 > $T/tracing_on; echo > $T/trace; echo 1 > $T/events/gpio/gpio_value/enable; echo 1 > $T/tracing_on\n"
              f"echo @GPIO; cat /sys/kernel/debug/gpio; echo @BEFORE\n{before}\nsleep {seconds}\n"
              "echo 0 > $T/tracing_on; echo 0 > $T/events/gpio/gpio_value/enable; echo @TRACE; cat $T/trace")
    output = ctx.run(script, timeout=seconds + 90).output
    expect("@TRACE" in output, f"tracing the GPIO lines failed:\n{output[-2000:]}")
    gpio_text = output.split("@GPIO", 1)[1].split("@BEFORE", 1)[0]
    bases = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(gpiochip\d+): GPIOs (\d+)-", gpio_text, re.M)}
    lines = parse_debugfs_gpio(gpio_text)
    initial = {led: led_lit(ctx, lines, led) for led in ctx.board["leds"]}
    by_number = {bases[spec["chip"]] + spec["line"]: led for led, spec in ctx.board["leds"].items() if spec["chip"] in bases}
    events = []
    for m in re.finditer(r"\s(\d+\.\d+): gpio_value: (\d+) set (\d+)", output.split("@TRACE", 1)[1]):
        led = by_number.get(int(m.group(2)))
        if led:
            events.append((float(m.group(1)), led, (m.group(3) != "0") != ctx.board["leds"][led]["activeLow"]))
    return initial, events


def timeline(initial, events, led):
    """[(time, lit)] level changes of one LED (repeated writes of the same level dropped)."""
    changes, level = [], initial.get(led)
    for t, name, lit in events:
        if name == led and lit != level:
            changes.append((t, lit))
            level = lit
    return changes


def rising_edges(initial, events, led):
    return [t for t, lit in timeline(initial, events, led) if lit]


def bursts(edges, gap=1.0):
    """Edge times grouped into bursts separated by more than `gap` seconds."""
    groups = []
    for t in edges:
        if groups and t - groups[-1][-1] <= gap:
            groups[-1].append(t)
        else:
            groups.append([t])
    return groups


# The image's unit allows 5 starts in 120 s (update-trial.conf: a release that cannot start is
# rolled back); the checks restart the daemon far more often than that, as an operator would
# with `systemctl reset-failed` first, which also clears the start counter.
RESTART = f"systemctl reset-failed {SERVICE} 2>/dev/null; systemctl restart {SERVICE}"


def restart_and_track(ctx, before=""):
    """Restarts the unit (after `before`), waits for active, records the new PID."""
    ctx.run(f"{before}\n{RESTART}", timeout=120)
    props = ctx.service("ActiveState", "MainPID")
    expect(props["ActiveState"] == "active", f"after restart: {props}:\n{ctx.unit_log()}")
    ctx.facts["pid"] = props["MainPID"]


@check("led-lamp-test")
def led_lamp_test(ctx):
    """At start every LED is lit for about a second (lamp test), then the state pattern follows."""
    initial, events = trace_leds(ctx, 12, before=f"systemctl reset-failed {SERVICE} 2>/dev/null; systemctl restart --no-block {SERVICE}")
    ctx.facts["pid"] = ctx.service("MainPID")["MainPID"]
    # Levels replayed from the restart on (the old process darkens everything when it stops).
    level = {led: False for led in ctx.board["leds"]}
    lamp_on = lamp_off = None
    for t, led, lit in events:
        level[led] = lit
        if lamp_on is None and all(level.values()):
            lamp_on = t
        elif lamp_on is not None and not all(level.values()):
            lamp_off = t
            break
    expect(lamp_on is not None, f"no moment with every LED lit in 12 s after the restart ({len(events)} line writes):\n"
                                f"{ctx.unit_log()}")
    expect(lamp_off is not None, "the LEDs stayed all lit (lamp test never ended)")
    expect(0.8 <= lamp_off - lamp_on <= 2.0, f"lamp test lasted {lamp_off - lamp_on:.2f} s, expected ~1 s")
    ctx.facts["lamp-test-seconds"] = round(lamp_off - lamp_on, 2)


@check("led-blink-code")
def led_blink_code(ctx):
    """Down (the VM has no channels and no wlan0): service dark, the fault LED blinks the code of
    the first reason (N blinks of 250 ms, pause), as GET /api/v1/leds reports."""
    service = wait_service(ctx, lambda s: s["state"] == "down" and "not-running" not in s["reasons"], 30, "down")
    status, body = mgmt(ctx, "GET", "/api/v1/leds")
    expect(status == 200, f"GET /api/v1/leds: HTTP {status} {body}")
    pattern = json.loads(body)["pattern"]
    expect(pattern.startswith("blink-code-"), f"pattern {pattern!r} while down ({service})")
    blinks = int(pattern.rsplit("-", 1)[1])
    initial, events = trace_leds(ctx, 2.5 + 2 * (blinks * 0.5 + 1.5))
    expect(initial["service"] is False and not rising_edges(initial, events, "service"), "service LED lit while down")
    fault = timeline(initial, events, "fault")
    groups = bursts([t for t, lit in fault if lit])
    complete = groups[1:-1] if len(groups) > 2 else []
    expect(complete, f"no complete blink burst on the fault LED: {groups}")
    expect(all(len(g) == blinks for g in complete),
           f"bursts of {[len(g) for g in complete]} blinks, expected {blinks} ({service['reasons']})")
    on_times = [b[0] - a[0] for a, b in zip(fault, fault[1:]) if a[1] and not b[1]]
    expect(on_times and all(0.15 <= d <= 0.5 for d in on_times), f"blinks lit for {on_times} s, expected 0.25 s")
    ctx.facts["blink-code"] = blinks


@check("led-locate")
def led_locate(ctx):
    """POST /api/v1/leds/locate blinks every LED together at 4 Hz, then the state pattern returns."""
    status, body = mgmt(ctx, "POST", "/api/v1/leds/locate?seconds=6")
    expect(status == 200, f"locate: HTTP {status} {body}")
    initial, events = trace_leds(ctx, 3)
    edges = {led: rising_edges(initial, events, led) for led in ctx.board["leds"]}
    for led, times in edges.items():
        expect(len(times) >= 8, f"{led} LED blinked {len(times)} times in 3 s of locate, expected ~12")
    service = edges["service"]
    for led, times in edges.items():
        expect(all(min(abs(t - s) for s in service) < 0.05 for t in times), f"{led} LED does not blink with service")
    time.sleep(4)
    status, body = mgmt(ctx, "GET", "/api/v1/leds")
    expect(json.loads(body)["pattern"] == f"blink-code-{ctx.fact('blink-code')}", f"after locate: {body}")


HWSIM_DIR = "/run/gs-hwsim"
HWSIM_SSID = "grandstand-venue"


def follow_events(ctx, name, seconds):
    """Starts `curl -N /api/v1/events` in the guest for `seconds` (detached: no output on the
    agent's pipe), into /run/NAME.sse."""
    token = ctx.run(f"cat {TOKEN_FILE}").output.strip()
    ctx.run(f"rm -f /run/{name}.sse; (timeout {seconds} curl -sN -H 'Authorization: Bearer {token}' "
            f"{MANAGEMENT}/api/v1/events > /run/{name}.sse 2>&1 </dev/null &)")


def read_events(ctx, name):
    """[(event, data dict)] of a follow_events file."""
    events, kind = [], None
    for line in ctx.run(f"cat /run/{name}.sse", expect_ok=False).output.splitlines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind:
            try:
                events.append((kind, json.loads(line[6:])))
            except ValueError:
                pass
            kind = None
    return events


@check("wifi-hwsim")
def wifi_hwsim(ctx):
    """Wi-Fi through mac80211_hwsim: hostapd runs an open network on the radio whose MAC is the
    config's venue AP (`network.wifiApInfo`), the config's uplink associates (`iw connect`).
    /api/v1/stats and `grandstand stats` show the AP's BSSID, SSID, 2412 MHz, signal, bitrates and
    name, in_venue true, and the AP interface's one client with its signal; the service leaves
    wifi-down. Disconnecting brings wifi-down back: reason bit, blink code 2, service-down and
    out-of-venue on /api/v1/events. hwsim is unloaded afterwards (the kernel suite loads its own)."""
    network = json.loads(ctx.run(f"cat {CONFIG}").output)["network"]
    uplink, venue = network["wifiInterface"], network["wifiApInfo"][0]
    bssid = venue["bssid"].lower()
    # Every step bounded (timeout): a hung tool must fail the check, not wedge the guest agent.
    setup = f"""set -e
timeout 120 modprobe mac80211_hwsim radios=2
for i in $(seq 100); do [ $(ls -d /sys/class/net/wlan* 2>/dev/null | wc -l) -ge 2 ] && break; sleep 0.2; done
ap=$(for d in /sys/class/net/wlan*; do [ "$(cat $d/address)" = "{bssid}" ] && basename $d; done)
[ -n "$ap" ] || {{ echo "no hwsim radio has MAC {bssid}"; ip -br link; exit 1; }}
[ "$ap" != "{uplink}" ] || {{ echo "the venue AP's radio is the uplink {uplink}"; exit 1; }}
mkdir -p {HWSIM_DIR}
printf 'interface=%s\ndriver=nl80211\nssid={HWSIM_SSID}\nhw_mode=g\nchannel=1\n' $ap > {HWSIM_DIR}/hostapd.conf
timeout 60 hostapd -B -P {HWSIM_DIR}/hostapd.pid -f {HWSIM_DIR}/hostapd.log {HWSIM_DIR}/hostapd.conf </dev/null >/dev/null 2>&1
for i in $(seq 100); do timeout 10 iw dev $ap info | grep -q 'type AP' && break; sleep 0.2; done
ip link set {uplink} up
timeout 20 iw dev {uplink} connect {HWSIM_SSID}
for i in $(seq 100); do timeout 10 iw dev {uplink} link | grep -q '^Connected' && break; sleep 0.2; done
timeout 10 iw dev {uplink} link
echo AP=$ap"""
    try:
        result = ctx.run(setup, timeout=300, expect_ok=False)
        expect(result.ok and "Connected to" in result.output,
               f"hwsim association failed:\n{result.output}\n{ctx.run(f'cat {HWSIM_DIR}/hostapd.log', expect_ok=False).output[-1500:]}")
        ap = result.output.rsplit("AP=", 1)[1].strip()
        ctx.facts["hwsim-ap"] = ap
        deadline = time.monotonic() + 60
        while True:
            status, body = mgmt(ctx, "GET", "/api/v1/stats")
            stats = json.loads(body) if status == 200 else {}
            wifi = stats.get("wifi") or {}
            if wifi.get("associated") and stats.get("in_venue") is True:
                break
            expect(time.monotonic() < deadline, f"stats never showed an associated uplink in venue: HTTP {status} "
                                                f"wifi={wifi} wifi_error={stats.get('wifi_error')} in_venue={stats.get('in_venue')}")
            time.sleep(2)
        wanted = {"interface": uplink, "mode": "station", "bssid": bssid, "ssid": HWSIM_SSID, "ap_name": venue["name"],
                  "frequency_mhz": 2412}
        wrong = {k: wifi.get(k) for k, v in wanted.items() if wifi.get(k) != v}
        expect(not wrong, f"uplink {wrong}, expected {wanted}")
        expect(isinstance(wifi.get("signal_dbm"), int) and -110 <= wifi["signal_dbm"] <= 0, f"signal {wifi.get('signal_dbm')}")
        expect((wifi.get("tx_bitrate_kbps") or 0) > 0, f"tx bitrate {wifi.get('tx_bitrate_kbps')}")
        # rx bitrate stays null until the station has received data frames (hwsim: none yet).
        expect("rx_bitrate_kbps" in wifi and "tx_retries" in wifi and wifi.get("connected_seconds") is not None, f"{wifi}")
        ap_side = [i for i in stats.get("wifi_interfaces", []) if i.get("interface") == ap]
        expect(ap_side and ap_side[0].get("mode") == "ap" and ap_side[0].get("station_count") == 1,
               f"AP interface {ap} in wifi_interfaces: {stats.get('wifi_interfaces')}")
        client = ap_side[0]["stations"][0]
        uplink_mac = ctx.run(f"cat /sys/class/net/{uplink}/address").output.strip()
        expect(client.get("mac") == uplink_mac and isinstance(client.get("signal_dbm"), int),
               f"AP client {client}, expected {uplink_mac} with a signal")
        ctx.facts["wifi"] = f"{wifi['bssid']} {wifi['ssid']} {wifi['frequency_mhz']} MHz {wifi['signal_dbm']} dBm " \
                            f"tx {wifi['tx_bitrate_kbps']} kbit/s, AP {ap} clients 1"
        cli = ctx.run("grandstand stats", expect_ok=False).output
        expect(bssid in cli and venue["name"] in cli and HWSIM_SSID in cli, f"grandstand stats lacks the Wi-Fi link:\n{cli[-1500:]}")
        up = wait_service(ctx, lambda s: "wifi-down" not in s["reasons"] and s["inVenue"], 30, "no wifi-down, in venue")

        follow_events(ctx, "wifi", 60)
        time.sleep(1)
        ctx.run(f"iw dev {uplink} disconnect")
        down = wait_service(ctx, lambda s: "wifi-down" in s["reasons"], 40, "wifi-down after the disconnect")
        expect(down["reasonsBitmap"] & 2 and down["pattern"] == "blink-code-2",
               f"after the disconnect: {down} (was {up})")
        initial, events = trace_leds(ctx, 2.5 + 2 * (2 * 0.5 + 1.5))
        groups = bursts([t for t, lit in timeline(initial, events, "fault") if lit])
        complete = groups[1:-1] if len(groups) > 2 else []
        expect(complete and all(len(g) == 2 for g in complete), f"fault LED bursts {[len(g) for g in groups]}, expected 2 blinks each")
        deadline = time.monotonic() + 20
        while True:
            seen = read_events(ctx, "wifi")
            downs = [d for k, d in seen if k == "service-down" and "wifi-down" in d.get("fields", {}).get("REASONS", "")]
            if downs and any(k == "out-of-venue" for k, _ in seen):
                break
            expect(time.monotonic() < deadline, f"/api/v1/events lacks service-down (wifi-down) and out-of-venue: {seen}")
            time.sleep(2)
        expect(seen[0][0] == "status", f"the event stream did not start with the status event: {seen[:2]}")
    finally:
        ctx.run(f"kill $(cat {HWSIM_DIR}/hostapd.pid) 2>/dev/null; sleep 1; timeout 60 rmmod mac80211_hwsim; "
                f"rm -rf {HWSIM_DIR}", timeout=90, expect_ok=False)


@check("led-steady-up")
def led_steady_up(ctx):
    """With a static channel and no Wi-Fi interface the service is up: service LED steadily lit,
    fault dark; a service-up entry is journaled."""
    original = ctx.run(f"cat {CONFIG}").output
    ctx.facts["config-original"] = original
    config = json.loads(original)
    config.setdefault("network", {})["wifiInterface"] = None
    config["channels"] = [{"name": "VM Check", "kind": "video", "group": "239.255.42.1", "port": 5000}]
    config["health"] = {"enterSeconds": 1, "exitSeconds": 1}
    text = json.dumps(config).replace("'", "'\\''")
    restart_and_track(ctx, before=f"printf '%s\\n' '{text}' > {CONFIG}")
    wait_service(ctx, lambda s: s["state"] == "up", 40, "service up")
    initial, events = trace_leds(ctx, 3)
    expect(initial["service"] is True and not timeline(initial, events, "service"),
           f"service LED not steadily lit while up: {initial}, {timeline(initial, events, 'service')}")
    expect(initial["fault"] is False and not rising_edges(initial, events, "fault"), "fault LED lit while up")
    entries = [e for e in ctx.journal(SERVICE_UP_ID, wait=5) if e.get("_PID") == ctx.fact("pid")]
    expect(entries and entries[-1].get("GRANDSTAND_REASONS") == "none",
           f"no service-up entry (MESSAGE_ID={SERVICE_UP_ID}) from PID {ctx.fact('pid')}: {entries[-1:]}")


@check("watchdog-restart")
def watchdog_restart(ctx):
    """A hung capture loop stops WATCHDOG=1; systemd kills and restarts the daemon (NRestarts
    goes up, a new PID), which comes back up and lights the service LED."""
    restart_and_track(ctx, before=f"echo GRANDSTAND_DEBUG_FAULTS=1 > {DEBUG_ENV}")
    old_pid = ctx.fact("pid")
    restarts = int(ctx.service("NRestarts")["NRestarts"])
    # A live ingest change first (a new capture replaces the old one): the fault must hang the new one.
    config = json.loads(ctx.run(f"cat {CONFIG}").output)
    config["channels"].append({"name": "VM Check 2", "kind": "video", "group": "239.255.42.2", "port": 5002})
    text = json.dumps(config).replace("'", "'\\''")
    token = ctx.run(f"cat {TOKEN_FILE}").output.strip()
    put = ctx.run(f"printf '%s' '{text}' | curl -sS -m 20 -X PUT -H 'Authorization: Bearer {token}' --data-binary @- "
                  f"-w '\\n%{{http_code}}' {MANAGEMENT}/api/v1/config", timeout=60).output
    expect(put.rstrip().endswith("200") and "$.channels" in put.split("restartRequired")[0],
           f"PUT /api/v1/config with a second channel did not apply live: {put[-400:]}")
    status, body = mgmt(ctx, "POST", "/api/v1/debug/fault?name=hang-pipeline")
    expect(status == 200, f"fault route: HTTP {status} {body}")
    started = time.monotonic()
    deadline = started + 120
    while True:
        props = ctx.service("ActiveState", "MainPID", "NRestarts")
        if props["MainPID"] not in (old_pid, "0") and props["ActiveState"] == "active":
            break
        expect(time.monotonic() < deadline, f"no restart within 120 s of the hang: {props}:\n{ctx.unit_log()}")
        time.sleep(2)
    ctx.facts["pid"] = props["MainPID"]
    ctx.facts["watchdog-restart-seconds"] = round(time.monotonic() - started)
    expect(int(props["NRestarts"]) == restarts + 1, f"NRestarts {props['NRestarts']}, expected {restarts + 1}")
    log = ctx.run(f"journalctl -b -u {SERVICE} --no-pager | grep -i 'watchdog timeout'", expect_ok=False).output
    expect("atchdog timeout" in log, f"systemd did not log a watchdog timeout:\n{ctx.unit_log()}")
    faults = [e for e in ctx.journal(FAULT_ID) if e.get("_PID") == old_pid]
    expect(faults, f"no fault-injected entry from PID {old_pid}")
    wait_service(ctx, lambda s: s["state"] == "up", 40, "service up after the restart")
    initial, events = trace_leds(ctx, 2)
    expect(initial["service"] is True and not timeline(initial, events, "service"),
           "service LED not steadily lit after the watchdog restart")


@check("health-restore")
def health_restore(ctx):
    """The image's config back (down again): a service-down entry carries REASONS and the bitmap."""
    original = ctx.facts.get("config-original")  # absent when led-steady-up failed early
    write = "" if original is None else "printf '%s\\n' '" + original.replace("'", "'\\''") + f"' > {CONFIG}"
    restart_and_track(ctx, before=f"rm -f {DEBUG_ENV}; {write}")
    wait_service(ctx, lambda s: s["state"] == "down" and "not-running" not in s["reasons"], 30, "down again")
    entries = [e for e in ctx.journal(SERVICE_DOWN_ID, wait=5)
               if e.get("_PID") == ctx.fact("pid") and "no-channels" in e.get("GRANDSTAND_REASONS", "")]
    expect(entries, f"no service-down entry with no-channels from PID {ctx.fact('pid')}")
    bitmap = int(entries[-1].get("GRANDSTAND_REASONS_BITMAP", "0"))
    expect(bitmap & 4, f"GRANDSTAND_REASONS_BITMAP={bitmap} lacks no-channels (4)")
    expect(ctx.run(f"test -e {DEBUG_ENV}", expect_ok=False).status != 0, f"{DEBUG_ENV} still present")


@check("reporter-outage")
def reporter_outage(ctx):
    """Reports across a Reporter outage (docs/reporting.md): a collector on the host (the guest
    reaches it at 10.0.2.2) answers 500, then too late, while the daemon is restarted; the queue
    on disk grows and survives the restart; when the collector recovers every report arrives once,
    each run's in sequence order and the first run's before the second's."""
    collector = Collector()
    original = ctx.run(f"cat {CONFIG}").output
    try:
        config = json.loads(original)
        config["reporting"] = {"url": f"http://10.0.2.2:{collector.port}/reports", "intervalSeconds": 2,
                               "retryInitialSeconds": 1, "retryMaxSeconds": 2, "timeoutSeconds": 5}
        text = json.dumps(config).replace("'", "'\\''")
        queue = "/var/lib/grandstand/reports"
        restart_and_track(ctx, before=f"rm -rf {queue}; printf '%s\\n' '{text}' > {CONFIG}")
        count = lambda: int(ctx.run(f"ls {queue} 2>/dev/null | grep -c '^report-' || true").output.strip() or 0)
        wait_until(lambda: collector.attempts >= 2 and count() >= 3, 60,
                   lambda: f"failing collector: {collector.attempts} attempts, {count()} queued")
        collector.mode = "delay"
        before = collector.attempts
        wait_until(lambda: collector.attempts >= before + 1, 30, lambda: f"no attempt while the collector is slow")
        queued = count()
        restart_and_track(ctx)
        expect(count() >= queued, f"the queue shrank across the restart: {queued} -> {count()} (nothing was delivered)")
        wait_until(lambda: count() >= queued + 1, 30, lambda: f"no report queued after the restart ({count()})")
        expect(not collector.received, f"reports recorded during the outage: {len(collector.received)}")
        collector.mode = "ok"
        wait_until(lambda: count() == 0 and len(collector.received) >= queued + 1, 90,
                   lambda: f"queue not flushed: {count()} left, {len(collector.received)} received")
        reports = list(collector.received)
        received = [(r["app_session_uuid"], r["report_sequence"]) for r in reports]
        # At-least-once: a POST answered after the daemon's timeout (a slow emulated guest) is
        # sent again at once; only such back-to-back repeats are tolerated.
        keys = [k for i, k in enumerate(received) if i == 0 or k != received[i - 1]]
        expect(len(set(keys)) == len(keys), f"reports repeated out of turn: {received}")
        expect(len({r["device_uuid"] for r in reports}) == 1, "more than one device_uuid")
        sessions = list(dict.fromkeys(k[0] for k in keys))
        expect(len(sessions) >= 2, f"expected reports of two daemon runs, got sessions {sessions}")
        order = [sessions.index(k[0]) for k in keys]
        expect(order == sorted(order), f"a later run's report arrived before an earlier run's: {keys}")
        first = [seq for session, seq in keys if session == sessions[0]]
        expect(first == list(range(1, len(first) + 1)), f"first run's sequences {first}, expected 1..{len(first)} in order")
        for session in sessions[1:]:
            seqs = [seq for s, seq in keys if s == session]
            expect(seqs == sorted(seqs), f"run {session} out of order: {seqs}")
        ctx.facts["reports"] = (f"{collector.failed} refused/late attempts, {len(keys)} reports delivered in order over "
                                f"{len(sessions)} runs ({len(received) - len(keys)} repeats)")
    finally:
        collector.close()
        restart_and_track(ctx, before="printf '%s\\n' '" + original.replace("'", "'\\''") + f"' > {CONFIG}")


def wait_until(condition, timeout, describe):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise CheckFailed(f"after {timeout} s: {describe()}")
        time.sleep(1)


class Collector:
    """A Reporter on the host for reporter-outage: `mode` fail (500), delay (answers 503 after
    the client's timeout) or ok (records the JSON report, 200)."""

    def __init__(self):
        import http.server
        import threading
        collector = self
        self.mode, self.received, self.attempts, self.failed = "fail", [], 0, 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                collector.attempts += 1
                mode = collector.mode
                if mode == "delay":
                    time.sleep(8)  # past the daemon's timeoutSeconds (5)
                if mode == "ok":
                    collector.received.append(json.loads(body))
                    status = 200
                else:
                    collector.failed += 1
                    status = 500 if mode == "fail" else 503
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the client gave up (delay)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


# Lines the daemon holds (0-2 on qemu-virt) double as the "busy line" for the EBUSY test; the
# free lines 4-6 carry the request/set/get round trips. Line 3 is the power key: never touched.
# One invocation per suite, one after the other: Swift Testing runs suites in parallel, and on
# the emulated 2-vCPU guest concurrent live-capture suites starve each other of CPU.
KERNEL_SUITE = (["LiveCaptureTests", "GPIO", "WiFi", "MulticastLoopbackTests", "SendEndToEndTests",
                 "LiveIngestEndToEndTests", "SendFECEndToEndTests",
                 # The memfd + sendfile answer path every segment takes to fans, on the arm64 kernel.
                 "MemoryFileTests"], {
    "GPIO_TEST_CHIP": "/dev/gpiochip0", "GPIO_TEST_LINES": "4,5,6", "GPIO_TEST_BUSY_LINE": "0",
    # WiFiLinkTests' hwsim association (docs/wifi.md); hostapd is spawned without Foundation.Process.
    "WIFI_TEST_HWSIM": "1",
    "GRANDSTAND_FIXTURES": "/opt/grandstand-tests/repo/Tests/Fixtures"})


@check("kernel-suite")
def kernel_suite(ctx):
    """The Swift tests of kernel facilities qemu-user lacks (live pcap capture, GPIO lines,
    nl80211), run in the guest from the cross-built test bundle: here they must really pass."""
    if not ctx.vm.run("test -x /opt/grandstand-tests/GrandstandPackageTests.xctest").ok:
        raise CheckFailed("no test bundle in the image (vm.py test --test-bundle …; `make test-vm` passes it)")
    patterns, env = KERNEL_SUITE
    variables = " ".join(f"{k}={v}" for k, v in env.items())
    outputs, passed_total, failed = [], 0, []
    for pattern in patterns:
        # Output to a file, bounded by timeout: a child left running (hostapd) cannot hold the
        # agent's pipe open, and a hung suite fails this check instead of wedging the agent.
        result = ctx.run(f"cd /opt/grandstand-tests && {variables} LD_LIBRARY_PATH=/opt/grandstand-tests/lib "
                         f"timeout -k 10 540 ./GrandstandPackageTests.xctest --testing-library swift-testing --filter '{pattern}' "
                         "> /run/kernel-suite.txt 2>&1 </dev/null; echo \"exit status $?\"; sed 's/\x1b\[[0-9;]*m//g' /run/kernel-suite.txt",
                         timeout=600, expect_ok=False)
        outputs.append(result.output)
        summary = [line for line in result.output.splitlines() if "Test run with" in line]
        passed = re.search(r"Test run with (\d+) tests? passed", summary[-1]) if summary else None
        if passed:
            passed_total += int(passed.group(1))
        else:
            failed.append(pattern)
    output = "\n".join(outputs)
    required = ["capturesADatagramSentOverLoopback() passed", "sendThenLiveCaptureThenReplayAgree() passed",
                "hwsimStationReportsTheAccessPoint() passed"]
    if failed or passed_total < 10 or not all(line in output for line in required):
        lines = output.splitlines()
        # Each failure line and the comment lines Swift Testing prints under it (indented).
        failures = [line[:1500] for i, line in enumerate(lines)
                    if "✘" in line or "failed" in line or "↳" in line
                    or (line.startswith(" ") and any("✘" in l for l in lines[max(0, i - 3):i]))]
        raise CheckFailed(f"kernel-facility tests did not all pass in the guest (failed: {', '.join(failed) or 'none'}; "
                          f"{passed_total} passed):\n" + "\n".join(failures[-40:] or lines[-40:]))
    ctx.facts["kernel-suite"] = passed_total


@check("stop")
def stop(ctx):
    """`systemctl stop` ends the daemon cleanly: exit 0, stopping entry journaled, LEDs dark and
    released."""
    ctx.run(f"systemctl stop {SERVICE}", timeout=60)
    props = ctx.service("ActiveState", "Result", "ExecMainCode", "ExecMainStatus")
    expect(props["ActiveState"] == "inactive" and props["Result"] == "success",
           f"after stop: {props}:\n{ctx.unit_log()}")
    expect(props["ExecMainCode"] == "1" and props["ExecMainStatus"] == "0",
           f"daemon did not exit 0 (ExecMainCode={props['ExecMainCode']} ExecMainStatus={props['ExecMainStatus']})")
    entries = [e for e in ctx.journal(STOPPING_ID, wait=5) if e.get("_PID") == ctx.fact("pid")]
    expect(entries, f"no MESSAGE_ID={STOPPING_ID} entry from PID {ctx.fact('pid')}:\n{ctx.unit_log()}")
    expect(entries[-1].get("GRANDSTAND_EVENT") == "stopping",
           f"stopping entry has GRANDSTAND_EVENT={entries[-1].get('GRANDSTAND_EVENT')!r}")
    held = ctx.led_lines()
    expect(not any(consumer == "grandstand" for consumer, _ in held.values()), f"LED lines still held: {held}")
    # Released lines keep their last level: the daemon must have darkened the LED itself.
    high = ctx.gpio_high_as_is("service")
    expect(high == ctx.board["leds"]["service"]["activeLow"], "service LED still lit after stop")


# The .deb's upgrade path on the booted qemu-virt image (vm.py test --image … --deb … --deb-previous …;
# packaging/ and docs/flashing.md). Runs last: it removes and purges the package, then reinstalls it.
UPGRADE_KEPT = ["/etc/grandstand/config.json", "/var/lib/grandstand/device-uuid",
                "/var/lib/grandstand/management-token", "/var/lib/grandstand/reports/upgrade-check.json",
                "/var/cache/grandstand/upgrade-check"]


@check("deb-upgrade")
def deb_upgrade(ctx):
    """Build N-1 installed, config edited, device UUID, cache and a queued report written; the
    upgrade to N keeps them all and restarts the daemon; remove keeps state and cache; purge
    wipes them (and the package comes back for a clean end)."""
    debs = ctx.run("ls /opt/grandstand-tests/debs/*.deb", expect_ok=False).output.split()
    expect(debs, "no packages on the data disk: this check needs vm.py test --image … --deb … --deb-previous … "
                 "(`make test-vm` passes them)")
    current = ctx.run("dpkg-query -W -f '${Version}' grandstand").output.strip()
    new = [d for d in debs if f"_{current}_" in d]
    old = [d for d in debs if f"_{current}_" not in d]
    expect(new and old, f"need the image's .deb ({current}) and build N-1 on the data disk, found {debs}")
    ctx.run(f"dpkg -i {old[0]}", timeout=300)
    previous = ctx.run("dpkg-query -W -f '${Version}' grandstand").output.strip()
    expect(previous != current, f"build N-1 did not install: version still {current}")
    expect(ctx.run("systemctl is-active grandstand.service", expect_ok=False).output.strip() == "active",
           f"daemon not active after installing N-1:\n{ctx.unit_log()}")
    # Earlier checks rewrote the config through the management API (its own formatting).
    ctx.run("set -e; sed -i -E 's/\"logLevel\"[[:space:]]*:[[:space:]]*\"[a-z]+\"/\"logLevel\": \"debug\"/' /etc/grandstand/config.json\n"
            "grep -q '\"logLevel\": \"debug\"' /etc/grandstand/config.json\n"
            "cd /var/lib/grandstand; [ -s device-uuid ] || cat /proc/sys/kernel/random/uuid > device-uuid\n"
            "mkdir -p reports; echo '{\"queued\": true}' > reports/upgrade-check.json\n"
            "[ -s management-token ] || echo upgrade-check-token > management-token\n"
            "echo cached > /var/cache/grandstand/upgrade-check\n"
            "chown -R grandstand:grandstand /var/lib/grandstand /var/cache/grandstand")
    before = ctx.run("sha256sum " + " ".join(UPGRADE_KEPT)).output
    pid = ctx.service("MainPID")["MainPID"]
    ctx.run(f"DEBIAN_FRONTEND=noninteractive dpkg -i {new[0]}", timeout=300)
    expect(ctx.run("dpkg-query -W -f '${Version}' grandstand").output.strip() == current, "upgrade to N failed")
    after = ctx.run("sha256sum " + " ".join(UPGRADE_KEPT), expect_ok=False).output
    expect(after == before, f"the upgrade changed kept files:\nbefore:\n{before}\nafter:\n{after}")
    props = ctx.service("ActiveState", "MainPID")
    expect(props["ActiveState"] == "active" and props["MainPID"] != pid,
           f"daemon not restarted by the upgrade (PID {pid} -> {props}):\n{ctx.unit_log()}")
    ctx.run("dpkg -r grandstand", timeout=300)
    expect(ctx.run("systemctl is-active grandstand.service", expect_ok=False).output.strip() != "active",
           "daemon still active after dpkg -r")
    kept = ctx.run("sha256sum " + " ".join(UPGRADE_KEPT), expect_ok=False).output
    expect(kept == before, f"dpkg -r did not keep config, state and cache:\n{kept}")
    ctx.run("dpkg -P grandstand", timeout=300)
    # On the A/B image /var/lib/grandstand is the data partition's mount point: emptied, kept.
    left = ctx.run("for d in /etc/grandstand /var/lib/grandstand /var/cache/grandstand; do [ -e $d ] || continue; "
                   "if mountpoint -q $d; then ls -A $d | sed \"s|^|$d/|\"; else echo $d; fi; done",
                   expect_ok=False).output.strip()
    expect(not left, f"dpkg -P left {left}")
    ctx.run(f"dpkg -i {new[0]}", timeout=300)
    expect(ctx.run("systemctl is-active grandstand.service", expect_ok=False).output.strip() == "active",
           f"daemon not active after reinstalling:\n{ctx.unit_log()}")
