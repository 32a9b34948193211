#!/usr/bin/env bash
# A file channel's receive cost (docs/performance.md, "FLUTE: receive cost per packet"): one
# FLUTE transmission of a random SIZE_MIB file, sent as the multicast update check sends a bundle
# (1400-byte symbols, blocks of 200 + 40 Reed-Solomon repairs, 16 interleaved, 5 % seeded loss)
# at RATE_MBIT, into `grandstand run` (release build, pinned to one core) capturing on loopback
# in a private network namespace. Measures the CPU time of the daemon's `ingest` (capture) and
# `files` (FLUTE assembly) threads per packet, against the reference measured in the same run:
# tools/bench/flute/floor.c, a libpcap capture of the same packets that pwrites each payload
# (nothing else). Checks the file arrived whole. Needs root (ip netns).
#   tools/bench/flute/receive.sh
# Env: GRANDSTAND_BIN (default .build/release/grandstand), SIZE_MIB (64), RATE_MBIT (20),
# DAEMON_CPU (1), SENDER_CPU (0), PERF=1 also records `perf record -g` of the daemon (perf.data
# kept in the cache folder).
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${GRANDSTAND_CACHE:-$here/.cache}/bench-flute
bin=${GRANDSTAND_BIN:-$here/.build/release/grandstand}
size_mib=${SIZE_MIB:-64}
rate=${RATE_MBIT:-20}
daemon_cpu=${DAEMON_CPU:-1}
sender_cpu=${SENDER_CPU:-0}
mkdir -p "$cache"
[ -x "$bin" ] || { echo "no $bin: swift build -c release --product grandstand" >&2; exit 1; }
floor=$cache/flute-floor
if [[ ! -x "$floor" || "$here/tools/bench/flute/floor.c" -nt "$floor" ]]; then
    gcc -O2 -Wall -o "$floor" "$here/tools/bench/flute/floor.c" -lpcap
fi
payload=$cache/payload-$size_mib
if [ ! -s "$payload/bundle.raucb" ]; then
    mkdir -p "$payload"
    head -c $((size_mib << 20)) /dev/urandom >"$payload/bundle.raucb.part" && mv "$payload/bundle.raucb.part" "$payload/bundle.raucb"
fi

# shellcheck source=tools/bench/netns.sh
source "$here/tools/bench/netns.sh"
bench_netns gs-flute "$(mktemp -d "$cache/run-XXXXXX")"
ip -n "$ns" route add 224.0.0.0/4 dev lo
floor_pid=""
cleanup_all() {
    [ -n "$floor_pid" ] && kill "$floor_pid" 2>/dev/null || true
    bench_cleanup
}
trap cleanup_all EXIT

group=239.255.77.1 port=6000
cat >"$work/config.json" <<JSON
{"license":{"venueName":"Bench Arena","contentOwner":"Grandstand","appDeveloper":"Grandstand","required":false},
 "network":{"interface":"lo","wifiInterface":null},
 "listeners":{"fan":"127.0.0.1:18080","management":"127.0.0.1:18081"},
 "management":{"token":"bench"},"stateDirectory":"$work/state",
 "channels":[{"name":"Updates","kind":"file","group":"$group","port":$port,"tsi":1}]}
JSON
ip netns exec "$ns" taskset -c "$daemon_cpu" "$bin" run --config "$work/config.json" >"$work/run.log" 2>&1 &
run_pid=$!
ip netns exec "$ns" taskset -c "$sender_cpu" "$floor" lo "udp dst port $port" "$work/floor.spool" >"$work/floor.log" 2>&1 &
floor_pid=$!
channel_listed() {   # the daemon logs to journald when one runs, so ask its API, not its log
    ip netns exec "$ns" curl -s -H "Authorization: Bearer bench" http://127.0.0.1:18081/api/v1/channels | grep -q '"updates"'
}
for _ in $(seq 100); do channel_listed && break; sleep 0.1; done
channel_listed || { echo "the daemon did not list the channel:" >&2; cat "$work/run.log" >&2; exit 1; }
interval=$(python3 -c "print(f'{1460 * 8 / ($rate * 1e6):.6f}')")   # one 1460-byte IP packet per interval
echo "FLUTE receive: ${size_mib} MiB at $rate Mbit/s (5 % loss, 200+40 RS, 16 interleaved); daemon on CPU $daemon_cpu, sender and reference on CPU $sender_cpu"
sender=(ip netns exec "$ns" taskset -c "$sender_cpu" "$bin" send --interface lo --files "updates@$group:$port=$payload"
        --file-symbol-size 1400 --file-block 200 --file-repair 40 --file-interleave 16 --file-interval "$interval"
        --count 1 --drop-rate 0.05 --seed 3)
perf_pid=""
if [ -n "${PERF:-}" ]; then
    perf record -F 999 -g -p "$run_pid" -o "$cache/perf.data" >/dev/null 2>&1 &
    perf_pid=$!
fi
python3 - "$run_pid" "$ns" "$payload/bundle.raucb" "$work/floor.log" "$floor_pid" "${perf_pid:-0}" "${sender[@]}" <<'PY'
import hashlib, json, os, signal, subprocess, sys, time, urllib.request
pid, ns, payload, floor_log, floor_pid, perf_pid, sender = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7:]
tick = os.sysconf("SC_CLK_TCK")
def threads():
    out = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            comm = open(f"/proc/{pid}/task/{task}/comm").read().strip()
            fields = open(f"/proc/{pid}/task/{task}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[comm] = out.get(comm, 0) + (int(fields[11]) + int(fields[12])) / tick
    return out
def get(path, management=False):
    port = 18081 if management else 18080
    cmd = ["ip", "netns", "exec", ns, "curl", "-s", "-o", "/dev/stdout", "-w", "\n%{http_code}"]
    if management: cmd += ["-H", "Authorization: Bearer bench"]
    out = subprocess.run(cmd + [f"http://127.0.0.1:{port}{path}"], capture_output=True, check=True).stdout
    body, _, status = out.rpartition(b"\n")
    return int(status), body
def counters():
    """The channel's packets, the capture's kernel drops (totals) and the files queue's drops (the files table)."""
    stats = json.loads(get("/api/v1/stats", True)[1])
    table = json.loads(get("/api/v1/files/updates", True)[1]).get("stats") or {}
    return (stats["channels"].get("updates", {}).get("packets_received", 0), stats["total"].get("pcap_dropped_kernel", 0),
            table.get("dropped_queue_full", 0))
expected = hashlib.sha256(open(payload, "rb").read()).hexdigest()
before, start = threads(), time.monotonic()
subprocess.run(sender, check=True, stdout=subprocess.DEVNULL)
sent = time.monotonic()
complete = None
while time.monotonic() - sent < 120:
    status, body = get("/files/updates/bundle.raucb")
    if status == 200:
        complete = time.monotonic()
        break
    time.sleep(0.2)
after = threads()
if perf_pid: os.kill(perf_pid, signal.SIGINT)
os.kill(floor_pid, signal.SIGTERM)
for _ in range(50):
    if "packets=" in open(floor_log).read(): break
    time.sleep(0.1)
floor = dict(kv.split("=") for kv in open(floor_log).read().split())
packets, kernel_drops, queue_drops = counters()
def per_packet(name): return 1e6 * (after.get(name, 0) - before.get(name, 0)) / max(packets, 1)
files, ingest = per_packet("files"), per_packet("ingest")
reference = 1e6 * float(floor["cpu_seconds"]) / max(int(floor["packets"]), 1)
print(f"transmission: {sent - start:.1f} s; packets received {packets}, kernel drops {kernel_drops}, dropped_queue_full {queue_drops}")
print(f"CPU per packet: files thread {files:.1f} µs, ingest thread {ingest:.1f} µs, both {files + ingest:.1f} µs")
print(f"reference (libpcap + one pwrite per packet, {floor['packets']} packets): {reference:.1f} µs; ratio {(files + ingest) / reference:.1f}x")
if complete is None:
    sys.exit("the file did not complete within 120 s of the transmission's end")
whole = hashlib.sha256(get("/files/updates/bundle.raucb")[1]).hexdigest() == expected
print(f"file complete {complete - sent:.1f} s after the transmission; byte-identical: {'yes' if whole else 'NO'}")
sys.exit(0 if whole else 1)
PY
