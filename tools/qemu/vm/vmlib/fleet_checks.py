"""Fleet log upload (docs/fleet.md): the box's systemd-journal-upload, provisioned the operator's
way (files on the data partition), sends its journal over HTTPS to a systemd-journal-remote that
runs in another network namespace of the guest (a veth pair), with a CA and certificates made
here with openssl. Runs before "stop": it needs the daemon to journal."""
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from .checks import IMAGE_ONLY, SERVICE, CheckFailed, check, expect

FLEET_CHECKS = ["journal-upload"]
IMAGE_ONLY.update(FLEET_CHECKS)   # the drop-in and helper come with the image's .deb
RELOADED_ID = "992d142e69f949a48913bc1280039eaa"
UPLOAD = "systemd-journal-upload.service"
FLEET = "/var/lib/grandstand/fleet"
STATE = "/var/lib/grandstand/journal-upload/state"
NOC = "/run/gs-noc"                 # the test's CA, certificates and the remote's journal (tmpfs)
NETNS, BOX_IP, REMOTE_IP, PORT = "gsnoc", "10.203.0.1", "10.203.0.2", 19532
REMOTE = "gs-noc-remote"           # the transient unit running systemd-journal-remote in NETNS


def make_pki(ctx):
    """A CA, the remote's server certificate for its address, the box's client certificate (CN =
    the guest's host name) and an unrelated CA, made with openssl on the host (native: seconds
    saved under TCG) and written to NOC in the guest."""
    hostname = ctx.run("hostname").output.strip()
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    with tempfile.TemporaryDirectory() as work:
        def openssl(*args):
            subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True)

        for ca in ("ca", "other-ca"):
            openssl("req", "-x509", *ec, "-days", "2", "-subj", f"/CN=noc-{ca}", "-keyout", f"{ca}.key", "-out", f"{ca}.pem")
        for name, cn, extension in (("server", REMOTE_IP, f"subjectAltName=IP:{REMOTE_IP}"),
                                    ("box", hostname, "extendedKeyUsage=clientAuth")):
            Path(work, f"{name}.ext").write_text(extension + "\n")
            openssl("req", *ec, "-subj", f"/CN={cn}", "-keyout", f"{name}.key", "-out", f"{name}.csr")
            openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                    "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem")
        files = {f: Path(work, f).read_text() for f in ("ca.pem", "other-ca.pem", "server.pem", "server.key", "box.pem", "box.key")}
    script = f"set -e; rm -rf {NOC}; mkdir -p {NOC}/remote; umask 077\n"
    script += "".join(f"cat > {NOC}/{name} <<'PEM'\n{text}PEM\n" for name, text in files.items())
    ctx.run(script)


def start_network(ctx):
    ctx.run(f"""set -e; ip netns del {NETNS} 2>/dev/null || true
ip netns add {NETNS}
ip link add gs-noc type veth peer name eth0 netns {NETNS}
ip addr add {BOX_IP}/24 dev gs-noc && ip link set gs-noc up
ip -n {NETNS} addr add {REMOTE_IP}/24 dev eth0 && ip -n {NETNS} link set eth0 up && ip -n {NETNS} link set lo up
""")


def start_remote(ctx):
    """systemd-journal-remote in NETNS over TLS with the test CA's server certificate. Debian
    builds it without GnuTLS, so it has no --trust= and does not check client certificates
    (docs/fleet.md, "The NOC side"); the box presents its own anyway."""
    ctx.run(f"systemd-run --unit={REMOTE} -p NetworkNamespacePath=/run/netns/{NETNS} "
            f"/usr/lib/systemd/systemd-journal-remote --listen-https={REMOTE_IP}:{PORT} "
            f"--key={NOC}/server.key --cert={NOC}/server.pem --output={NOC}/remote/")
    # Listening once curl from the box's side gets past connecting (exit 7: connection refused).
    result = ctx.run(f"for i in $(seq 100); do systemctl is-active -q {REMOTE} || break; "
                     f"curl -s -o /dev/null -m 5 -k https://{REMOTE_IP}:{PORT}/; [ $? -eq 7 ] || exit 0; sleep 0.2; done; "
                     f"systemctl status {REMOTE} --no-pager -l; exit 1", timeout=120, expect_ok=False)
    expect(result.ok, f"systemd-journal-remote did not listen on {REMOTE_IP}:{PORT}:\n{result.output}")


def provision(ctx, ca, url=f"https://{REMOTE_IP}:{PORT}"):
    """The operator's way (docs/fleet.md): url, ca.pem, cert.pem, key.pem in FLEET, then a restart."""
    ctx.run(f"""set -e; install -d -m 0700 {FLEET}
echo {url} > {FLEET}/url
install -m 0600 {NOC}/{ca} {FLEET}/ca.pem
install -m 0600 {NOC}/box.pem {FLEET}/cert.pem
install -m 0600 {NOC}/box.key {FLEET}/key.pem
systemctl reset-failed {UPLOAD}; systemctl restart {UPLOAD} || true""", timeout=60)


def upload_log(ctx, since):
    return ctx.run(f"journalctl -u {UPLOAD} --since @{since} --no-pager -o cat", expect_ok=False).output


def upload_failed(ctx, since):
    """The uploader's own "Upload to URL failed: REASON" line since then."""
    return [line for line in upload_log(ctx, since).splitlines() if line.startswith("Upload to") and "failed" in line]


def reload_event(ctx):
    """`systemctl reload grandstand` journals a `reloaded` entry; returns it (journalctl -o json)."""
    since = ctx.run("date +%s.%N").output.strip()
    ctx.run(f"systemctl reload {SERVICE}", timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        output = ctx.run(f"journalctl -o json --no-pager --since @{since} _SYSTEMD_UNIT={SERVICE} "
                         f"MESSAGE_ID={RELOADED_ID}").output
        entries = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
        if entries:
            return entries[-1]
        time.sleep(0.5)
    raise CheckFailed(f"no `reloaded` entry after systemctl reload:\n{ctx.unit_log()}")


def remote_entries(ctx, entry):
    """The remote's copies of a local entry (same MESSAGE_ID and realtime timestamp)."""
    output = ctx.run(f"journalctl -D {NOC}/remote -o json --no-pager MESSAGE_ID={entry['MESSAGE_ID']} "
                     f"2>/dev/null || true").output
    return [e for e in (json.loads(line) for line in output.splitlines() if line.startswith("{"))
            if e.get("__REALTIME_TIMESTAMP") == entry["__REALTIME_TIMESTAMP"]]


def wait_remote(ctx, entry, timeout):
    """Polls the remote's journal files in the guest until `entry` is there (bounded); returns the
    seconds from the entry's own timestamp to when the remote had it."""
    script = (f"end=$(($(date +%s) + {timeout})); while [ $(date +%s) -lt $end ]; do "
              f"journalctl -D {NOC}/remote -o export --no-pager MESSAGE_ID={entry['MESSAGE_ID']} 2>/dev/null "
              f"| grep -qx '__REALTIME_TIMESTAMP={entry['__REALTIME_TIMESTAMP']}' && {{ date +%s%6N; exit 0; }}; "
              f"sleep 0.2; done; exit 1")
    result = ctx.run(script, timeout=timeout + 30, expect_ok=False)
    if not result.ok:
        raise CheckFailed(f"the entry ({entry.get('MESSAGE')!r}) did not reach the journal-remote in {timeout} s:\n"
                          f"{ctx.run(f'systemctl status {UPLOAD} {REMOTE} --no-pager -l', expect_ok=False).output}")
    return (int(result.output.strip()) - int(entry["__REALTIME_TIMESTAMP"])) / 1e6


def cleanup(ctx):
    ctx.run(f"systemctl stop {UPLOAD} {REMOTE} 2>/dev/null; systemctl reset-failed {UPLOAD} {REMOTE} 2>/dev/null; "
            f"rm -rf {FLEET} /var/lib/grandstand/journal-upload {NOC}; ip netns del {NETNS} 2>/dev/null; true",
            timeout=60, expect_ok=False)


@check("journal-upload", before="stop")
def journal_upload(ctx):
    """The daemon's entries reach a journal-remote in another namespace over TLS with their fields;
    a wrong CA is refused (TLS error, nothing arrives); entries journaled while the remote was
    down arrive once it is back (the cursor on the data partition)."""
    skipped = ctx.run(f"systemctl show {UPLOAD} -p UnitFileState -p ConditionResult -p ActiveState").output
    expect(all(f in skipped.split() for f in ("UnitFileState=enabled", "ConditionResult=no", "ActiveState=inactive")),
           f"an unprovisioned box must have the upload enabled but skipped (ConditionPathExists): {skipped}")
    try:
        make_pki(ctx)
        start_network(ctx)
        start_remote(ctx)

        # A provisioning mistake stops the unit with one line naming the file (exit 78, no retries).
        provision(ctx, "ca.pem", url=f"http://{REMOTE_IP}:{PORT}")
        ctx.run(f"for i in $(seq 150); do systemctl is-failed -q {UPLOAD} && break; sleep 0.2; done", timeout=60)
        props = ctx.run(f"systemctl show {UPLOAD} -p ActiveState -p ExecMainStatus -p NRestarts").output.split()
        log = ctx.run(f"journalctl -u {UPLOAD} -n 5 --no-pager -o cat").output
        expect("ActiveState=failed" in props and "ExecMainStatus=78" in props and "NRestarts=0" in props
               and f"{FLEET}/url must be the https:// URL" in log, f"an http:// URL gave {props}:\n{log}")

        # A CA that did not issue the remote's certificate: the TLS handshake fails, nothing arrives.
        since = ctx.run("date +%s").output.strip()
        provision(ctx, "other-ca.pem")
        deadline = time.monotonic() + 60
        while "certificate" not in upload_log(ctx, since).lower() and time.monotonic() < deadline:
            time.sleep(0.5)
        log = upload_log(ctx, since)
        expect("certificate" in log.lower(), f"no TLS certificate error from {UPLOAD} with a wrong CA:\n{log}")
        files = ctx.run(f"ls {NOC}/remote").output.split()
        expect(not files, f"the remote wrote {files} although the box's CA was wrong")
        refused = next(line for line in log.splitlines() if "certificate" in line.lower())

        # The right CA: the journal so far goes up (no cursor yet: from its start), then, caught up,
        # a fresh event arrives with its fields.
        provision(ctx, "ca.pem")
        first = reload_event(ctx)
        backlog = wait_remote(ctx, first, 120)
        entry = reload_event(ctx)
        latency = wait_remote(ctx, entry, 60)
        copy = remote_entries(ctx, entry)[0]
        machine_id = ctx.run("cat /etc/machine-id").output.strip()
        hostname = ctx.run("hostname").output.strip()
        for field, value in (("MESSAGE_ID", RELOADED_ID), ("_SYSTEMD_UNIT", SERVICE), ("GRANDSTAND_EVENT", "reloaded"),
                             ("SYSLOG_IDENTIFIER", "grandstand"), ("_MACHINE_ID", machine_id), ("_HOSTNAME", hostname),
                             ("_BOOT_ID", entry.get("_BOOT_ID")), ("MESSAGE", entry.get("MESSAGE"))):
            expect(copy.get(field) == value, f"remote copy has {field}={copy.get(field)!r}, expected {value!r}")
        state = ctx.run(f"findmnt -no TARGET -T {STATE}; cat {STATE}", expect_ok=False).output
        expect(state.startswith("/var/lib/grandstand\n") and "LAST_CURSOR=" in state,
               f"no upload cursor on the data partition: {state}")

        # Remote down: an event waits in the box's journal; back up: it arrives, once.
        since = ctx.run("date +%s").output.strip()
        ctx.run(f"systemctl stop {REMOTE}", timeout=60)
        offline = reload_event(ctx)
        deadline = time.monotonic() + 60
        while not upload_failed(ctx, since) and time.monotonic() < deadline:
            time.sleep(0.5)
        expect(upload_failed(ctx, since), f"no failed upload while the remote was down:\n{upload_log(ctx, since)}")
        expect(not remote_entries(ctx, offline), "an entry arrived while the remote was stopped")
        start_remote(ctx)
        back = time.monotonic()
        resumed = wait_remote(ctx, offline, 120)
        # At least once (docs/fleet.md): nothing lost; a batch cut off before its acknowledgement
        # is sent again, so a copy may be there twice.
        copies = [len(remote_entries(ctx, e)) for e in (first, entry)]
        expect(all(c >= 1 for c in copies), f"an event uploaded before the outage is gone from the remote: {copies}")
        ctx.facts["journal-upload"] = (f"latency {latency:.2f} s event to remote (caught up; {backlog:.1f} s with the "
                                       f"boot's journal first); wrong CA refused ({refused.strip()[:120]}); "
                                       f"offline entry arrived {resumed:.1f} s after it was journaled, "
                                       f"{time.monotonic() - back:.1f} s after the remote was back; "
                                       f"copies of the two earlier events on the remote: {copies}")
        quiet = int(os.environ.get("GRANDSTAND_VM_JOURNAL_QUIET", "0"))
        if quiet:
            ctx.facts["journal-upload"] += "; " + measure_quiet(ctx, quiet)
    finally:
        cleanup(ctx)


def measure_quiet(ctx, seconds):
    """A measurement, off by default (GRANDSTAND_VM_JOURNAL_QUIET=SECONDS): what an idle box journals
    and uploads over SECONDS, in journal export format (what journal-upload sends) and in the
    remote's file."""
    boot = ctx.run("journalctl -b -q -o json --no-pager | wc -l; journalctl -b -o export --no-pager | wc -c").output.split()
    start = ctx.run(f"date +%s; du -b {NOC}/remote | tail -n1 | cut -f1").output.split()
    time.sleep(seconds)   # the measured idle window itself, not a wait for an event
    end = ctx.run(f"date +%s; du -b {NOC}/remote | tail -n1 | cut -f1").output.split()
    window = f"--since @{start[0]} --until @{end[0]}"
    exported = int(ctx.run(f"journalctl {window} -o export --no-pager | wc -c").output.strip())
    entries = int(ctx.run(f"journalctl {window} -q -o json --no-pager | wc -l").output.strip())
    per_hour = 3600 / (int(end[0]) - int(start[0]))
    return (f"idle {int(end[0]) - int(start[0])} s: {entries} entries, {exported} B export format "
            f"(≈{exported * per_hour / 1024:.0f} KiB/h), remote files grew {int(end[1]) - int(start[1])} B; "
            f"this boot so far {boot[0]} entries, {int(boot[1]) // 1024} KiB export format, remote files {int(start[1]) // 1024} KiB")
