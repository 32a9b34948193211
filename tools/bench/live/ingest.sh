#!/usr/bin/env bash
# Live ingest at venue load (issue 17; docs/performance.md, "Live ingest"): 16 channels of
# ~8 Mbit/s, mixed as a venue sends them (4 RTP, 4 RTP with SMPTE 2022-1 10×10 FEC, 8 plain-UDP
# MPEG-TS from FFmpeg), into `grandstand run` (release build) pinned to one core, capturing on
# loopback inside a private network namespace; the senders run on the other core. After SETTLE
# seconds it measures, over SECONDS: the daemon's CPU use (utime + stime from /proc, % of one
# core), the packets libpcap saw and the kernel dropped (`pcap_dropped_kernel`), the datagrams
# the pipeline took, and gaps (loss after recovery). Needs root (ip netns), ffmpeg + libx264.
#   tools/bench/live/ingest.sh
# Env: GRANDSTAND_BIN (default .build/release/grandstand), SETTLE (default 15), SECONDS_MEASURED
# (default 30), HEALTH (videoHealth, default false: ingest and HLS packaging only), DAEMON_CPU
# (default 1), SENDER_CPU (default 0).
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
cache=${GRANDSTAND_CACHE:-$here/.cache}/bench-live
bin=${GRANDSTAND_BIN:-$here/.build/release/grandstand}
settle=${SETTLE:-15}
measured=${SECONDS_MEASURED:-30}
health=${HEALTH:-false}
daemon_cpu=${DAEMON_CPU:-1}
sender_cpu=${SENDER_CPU:-0}
mkdir -p "$cache"
[ -x "$bin" ] || { echo "no $bin: swift build -c release --product grandstand" >&2; exit 1; }

sample=$cache/sample-8M.ts
if [ ! -s "$sample" ]; then
    SAMPLE_SIZE=1280x720 SAMPLE_VIDEO_KBPS=7600 SAMPLE_MUX_KBPS=8000 SAMPLE_SECONDS=20 \
        "$here/tools/samples/make-sample.sh" "$sample" >/dev/null
fi

# shellcheck source=tools/bench/netns.sh
source "$here/tools/bench/netns.sh"
bench_netns gs-live "$(mktemp -d "$cache/run-XXXXXX")"
ip -n "$ns" route add 224.0.0.0/4 dev lo
ffmpeg_pids=()
cleanup_all() {
    for p in "${ffmpeg_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    bench_cleanup
}
trap cleanup_all EXIT

channels=""
send_channels=""
for i in $(seq 1 16); do
    group=239.255.50.$i
    if [ "$i" -le 8 ]; then
        fec=""; sfec=""
        if [ "$i" -ge 5 ]; then fec=',"fec":{"scheme":"smpte2022-1","L":10,"D":10}'; sfec=',"fec":"smpte2022-1:L=10,D=10"'; fi
        channels+="{\"name\":\"RTP $i\",\"kind\":\"video\",\"group\":\"$group\",\"port\":5000$fec},"
        send_channels+="{\"name\":\"RTP $i\",\"kind\":\"video\",\"file\":\"$sample\",\"group\":\"$group\",\"port\":5000$sfec},"
    else
        channels+="{\"name\":\"UDP $i\",\"kind\":\"video\",\"group\":\"$group\",\"port\":5000,\"transport\":\"udp\"},"
    fi
done
cat >"$work/config.json" <<EOF
{"license":{"venueName":"Bench Arena","contentOwner":"Grandstand","appDeveloper":"Grandstand","required":false},
 "network":{"interface":"lo","wifiInterface":null},
 "listeners":{"fan":"127.0.0.1:18080","management":"127.0.0.1:18081"},
 "management":{"token":"bench"},
 "hls":{"videoHealth":$health},
 "channels":[${channels%,}]}
EOF
echo "{\"channels\":[${send_channels%,}]}" >"$work/send.json"

ip netns exec "$ns" taskset -c "$daemon_cpu" "$bin" run --config "$work/config.json" >"$work/run.log" 2>&1 &
run_pid=$!
sleep 1
ip netns exec "$ns" taskset -c "$sender_cpu" "$bin" send --interface lo --loop --config "$work/send.json" >"$work/send.log" 2>&1 &
send_pid=$!
for i in $(seq 9 16); do
    ip netns exec "$ns" taskset -c "$sender_cpu" ffmpeg -hide_banner -loglevel error -nostdin -re -stream_loop -1 -i "$sample" \
        -c copy -f mpegts "udp://239.255.50.$i:5000?pkt_size=1316" >"$work/ffmpeg-$i.log" 2>&1 &
    ffmpeg_pids+=($!)
done

echo "16 channels x ~8 Mbit/s (4 RTP, 4 RTP + 2022-1 10x10, 8 plain UDP); daemon on CPU $daemon_cpu, senders on CPU $sender_cpu; videoHealth=$health; settling ${settle}s, measuring ${measured}s"
sleep "$settle"
python3 - "$run_pid" "$measured" "$ns" <<'PY'
import json, os, subprocess, sys, time
pid, seconds, ns = sys.argv[1], float(sys.argv[2]), sys.argv[3]
tick = os.sysconf("SC_CLK_TCK")
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick
def stats():
    out = subprocess.run(["ip", "netns", "exec", ns, "curl", "-s", "-H", "Authorization: Bearer bench",
                          "http://127.0.0.1:18081/api/v1/stats"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)
def total(s, key): return s["total"].get(key, 0)
s0, c0, t0 = stats(), cpu(), time.monotonic()
time.sleep(seconds)
s1, c1, t1 = stats(), cpu(), time.monotonic()
elapsed = t1 - t0
keys = ["pcap_received", "pcap_dropped_kernel", "datagrams_received", "ts_packets", "gaps", "gap_packets",
        "recovered_packets", "total_num_bytes_written"]
delta = {k: total(s1, k) - total(s0, k) for k in keys}
mbit = delta["total_num_bytes_written"] * 8 / elapsed / 1e6
print(f"daemon CPU: {100 * (c1 - c0) / elapsed:.1f} % of one core over {elapsed:.1f} s")
print(f"ingested: {delta['datagrams_received'] / elapsed:.0f} datagrams/s, {mbit:.1f} Mbit/s of TS written downstream")
print(f"libpcap: received {delta['pcap_received']}, dropped by the kernel {delta['pcap_dropped_kernel']}")
print(f"gaps {delta['gaps']} ({delta['gap_packets']} packets), recovered {delta['recovered_packets']}")
low = [cid for cid, c in s1["channels"].items() if (c.get("ts_packets", 0) - s0["channels"].get(cid, {}).get("ts_packets", 0)) < 1000]
print("channels with little TS:", ", ".join(sorted(low)) or "none")
PY
