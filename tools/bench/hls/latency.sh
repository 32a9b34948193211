#!/usr/bin/env bash
# Live-edge latency of a running gateway (release build) in a private network namespace:
# `grandstand run` captures `grandstand send --loop` of FILE as N channels on loopback; an LL-HLS
# client (latency.py) blocks on the preload-hinted part of the first channel PARTS times, and the
# gateway's own part publish delay (listed time - first packet's arrival - part duration, from
# /api/v1/stats) is read at the end. Needs root (ip netns).
#   tools/bench/hls/latency.sh [FILE=tools/samples/clean.ts] [CHANNELS=1] [PARTS=250]
# RT=1 runs the gateway and the sender under SCHED_FIFO (chrt -f 20): on a shared, overloaded
# machine that measures the gateway's own delay instead of the other work's scheduling.
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
file=${1:-$here/tools/samples/clean.ts}
channels=${2:-1}
parts=${3:-250}
bin=${GRANDSTAND_BIN:-$here/.build/release/grandstand}
[ -x "$bin" ] || { echo "no $bin: swift build -c release --product grandstand" >&2; exit 1; }
# shellcheck source=tools/bench/netns.sh
source "$here/tools/bench/netns.sh"
bench_netns gs-lat "$(mktemp -d)"
cat >"$work/config.json" <<JSON
{"license":{"venueName":"Demo Stadium","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
 "network":{"interface":"lo","wifiInterface":null},
 "listeners":{"fan":"127.0.0.1:18080","management":"127.0.0.1:18081"},
 "management":{"token":"bench"}}
JSON
rt=(); [ "${RT:-0}" = 1 ] && rt=(chrt -f 20)
ip netns exec "$ns" "${rt[@]}" "$bin" run --config "$work/config.json" >"$work/run.log" 2>&1 &
run_pid=$!
sleep 1
args=(send --interface lo --loop --sap-interval 1)
for i in $(seq 1 "$channels"); do args+=(--video "Ch$i=$file@239.255.20.$i:$((5000 + 10 * i))"); done
ip netns exec "$ns" "${rt[@]}" "$bin" "${args[@]}" >"$work/send.log" 2>&1 &
send_pid=$!
for _ in $(seq 1 60); do
    ip netns exec "$ns" curl -s http://127.0.0.1:18080/channels.json | grep -q '"live":true' && break
    sleep 1
done
echo "file=$(basename "$file") channels=$channels parts=$parts RT=${RT:-0} load: $(cut -d' ' -f1-3 /proc/loadavg)"
ip netns exec "$ns" python3 "$here/tools/bench/hls/latency.py" http://127.0.0.1:18080 ch1 "$parts"
ip netns exec "$ns" curl -s -H "Authorization: Bearer bench" http://127.0.0.1:18081/api/v1/stats |
    python3 -c 'import json,sys; c=json.load(sys.stdin)["channels"]["ch1"]; print("gateway part publish delay (listed - first arrival - duration):", {k.replace("hls_part_publish_delay_",""): c[k] for k in sorted(c) if k.startswith("hls_part_publish_delay")})'
