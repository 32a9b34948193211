#!/usr/bin/env bash
# Many LL-HLS clients on one channel of a running gateway (issue 18: 2,000 clients on one core,
# p99 part-published-to-delivered ≤ 50 ms): `grandstand run` (release build, pinned to
# SERVER_CPU) captures `grandstand send --loop` of FILE on loopback in a private network
# namespace; ll-clients.c (pinned to CLIENT_CPU) runs each count of simulated clients for
# SECONDS: every client fetches each hinted part (held until published) and the blocking
# playlist naming the next, over one keep-alive connection. Prints a Markdown table: clients,
# parts, deliveries, delivery spread p50/p99/max from the part's first delivery (= its
# publication: held requests are answered then), errors, and the gateway's CPU use (% of one
# core). Needs root (ip netns).
#   tools/bench/ll/run.sh [FILE=tools/samples/clean.ts]
# Env: CLIENTS (default "500 1000 2000 3000"), SECONDS_EACH (default 20), SERVER_CPU (0),
# CLIENT_CPU (1), GRANDSTAND_BIN (default .build/release/grandstand), PART_SECONDS (0.2, the config default).
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
file=${1:-$here/tools/samples/clean.ts}
bin=${GRANDSTAND_BIN:-$here/.build/release/grandstand}
clients_list=${CLIENTS:-"500 1000 2000 3000"}
seconds=${SECONDS_EACH:-20}
[ -x "$bin" ] || { echo "no $bin: swift build -c release --product grandstand" >&2; exit 1; }
# shellcheck source=tools/bench/netns.sh
source "$here/tools/bench/netns.sh"
bench_netns gs-ll "$(mktemp -d)"
cc -O2 -o "$work/ll-clients" "$here/tools/bench/ll/ll-clients.c"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
cat >"$work/config.json" <<JSON
{"license":{"venueName":"Demo Stadium","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
 "network":{"interface":"lo","wifiInterface":null},
 "listeners":{"fan":"127.0.0.1:18080","management":"127.0.0.1:18081",
              "fanLimits":{"connections":20000,"perClient":20000}},
 "hls":{"partSeconds":${PART_SECONDS:-0.2},"videoHealth":false},
 "management":{"token":"bench"}}
JSON
ip netns exec "$ns" taskset -c "${SERVER_CPU:-0}" "$bin" run --config "$work/config.json" >"$work/run.log" 2>&1 &
run_pid=$!
sleep 1
ip netns exec "$ns" taskset -c "${SERVER_CPU:-0}" "$bin" send --interface lo --loop --sap-interval 1 \
    --video "Ch1=$file@239.255.20.1:5010" >"$work/send.log" 2>&1 &
send_pid=$!
for _ in $(seq 1 60); do
    ip netns exec "$ns" curl -s http://127.0.0.1:18080/channels.json | grep -q '"live":true' && break
    sleep 1
done
cpu_ticks() { awk '{print $14 + $15}' "/proc/$run_pid/stat"; }
hz=$(getconf CLK_TCK)
echo "file=$(basename "$file") part=${PART_SECONDS:-0.2} s, ${seconds} s each, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| clients | parts | deliveries | p50 ms | p99 ms | max ms | misses | errors | gateway CPU % |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $clients_list; do
    before=$(cpu_ticks); started=$(date +%s.%N)
    line=$(ip netns exec "$ns" taskset -c "${CLIENT_CPU:-1}" "$work/ll-clients" 127.0.0.1 18080 ch1 "$n" "$seconds")
    after=$(cpu_ticks); ended=$(date +%s.%N)
    cpu=$(awk -v a="$before" -v b="$after" -v s="$started" -v e="$ended" -v hz="$hz" 'BEGIN { printf "%.0f", (b - a) / hz / (e - s) * 100 }')
    get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $line"; }
    echo "| $n | $(get parts) | $(get deliveries) | $(get p50_ms) | $(get p99_ms) | $(get max_ms) | $(get misses) | $(get errors) | $cpu |"
done
