#!/usr/bin/env bash
# Soak: the live daemon (`grandstand run`) in a private network namespace against 4 channels with
# Reed-Solomon FEC, loss and network faults (`grandstand send --drop-rate --impair`), while HTTP
# clients play every channel (curl following live playlists and fetching new segments and parts,
# one ffmpeg reading a live playlist, and LL_CLIENTS simulated LL-HLS clients on one channel,
# tools/bench/ll/ll-clients.c: blocking reloads and held parts, ~5 requests/s each). Samples the daemon's RSS, open file descriptors, threads,
# CPU and the clients' errors every SOAK_INTERVAL seconds into samples.csv; report.py turns that
# into summary.md (growth after warm-up, the SIGTERM-to-exit time at the end) and, with --assert,
# fails on a crash, unbounded growth, or a stop slower than 2 s or not exiting 0.
#
# usage: soak.sh --binary PATH --seconds N --out DIR [--interval S] [--assert] [--max-growth PCT] [--warmup S]
# Needs root (network namespaces). Exit status: the report's (non-zero on crash or growth > limit).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
binary="" seconds=600 out="" interval=5 assert=() growth=5 warmup=()
while (( $# )); do
    case $1 in
        --binary) binary=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --interval) interval=$2; shift 2 ;;
        --assert) assert=(--assert); shift ;;
        --max-growth) growth=$2; shift 2 ;;
        --warmup) warmup=(--warmup "$2"); shift 2 ;;
        *) echo "soak: unknown argument $1" >&2; exit 64 ;;
    esac
done
[[ -x $binary ]] || { echo "soak: --binary must be the grandstand executable (got '$binary')" >&2; exit 64; }
[[ -n $out ]] || { echo "soak: --out DIR is required" >&2; exit 64; }
(( EUID == 0 )) || { echo "soak: needs root (network namespaces, multicast capture)" >&2; exit 77; }
mkdir -p "$out"
rm -f "$out"/*.log "$out"/samples.csv "$out"/summary.md "$out"/clients-*.count
ns=gs-soak-$$
# Ports from the pid, so two soaks (a long one and soak-check) can run side by side.
port=$(( 18000 + $$ % 500 * 2 ))
fan=127.0.0.1:$port mgmt=127.0.0.1:$((port + 1)) token=soak
pids=()

cleanup() {
    # Players first (newest first), the daemon last: its end is not a client error.
    for (( i = ${#pids[@]} - 1; i >= 0; i-- )); do pkill -KILL -P "${pids[i]}" 2>/dev/null || true; kill -KILL "${pids[i]}" 2>/dev/null || true; done
    wait 2>/dev/null || true
    ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT

# A veth pair: the streamer sends on gsv0, the daemon captures on gsv1; HTTP runs over lo.
ip netns add "$ns"
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
in_ns ip link add gsv0 type veth peer name gsv1
in_ns ip addr add 10.77.0.1/24 dev gsv0
in_ns ip addr add 10.77.0.2/24 dev gsv1
in_ns ip link set gsv0 up
in_ns ip link set gsv1 up
in_ns ip route add 239.0.0.0/8 dev gsv0

cat >"$out/config.json" <<EOF
{"license":{"venueName":"Soak Arena","contentOwner":"Grandstand","appDeveloper":"Soak"},
 "network":{"interface":"gsv1","wifiInterface":null},
 "listeners":{"fan":"$fan","management":"$mgmt","fanLimits":{"perClient":512}},
 "management":{"token":"$token"},
 "discovery":{"sapGroups":["239.255.255.255"]}}
EOF

# nsenter execs the daemon (ip netns exec would stay its parent), so $! is the daemon's pid.
nsenter --net="/run/netns/$ns" "$binary" run --config "$out/config.json" >"$out/daemon.log" 2>&1 &
daemon=$!
pids+=("$daemon")

sample="$repo/tools/samples/clean.ts"
videos=()
for n in 1 2 3 4; do videos+=(--video "Soak Cam $n=$sample@239.255.61.$n:$((46000 + 10 * n))"); done
# RS k=20 m=4 recovers up to 4 of 24; 0.5 % random loss plus duplicates, reordering, 0-3 ms
# jitter and a 6-packet burst every 2000 packets (beyond what FEC repairs: counted as lost).
in_ns "$binary" send --interface gsv0 --license "Soak Arena/Grandstand/Soak" --sap-interval 1 --lead-in 2 --loop \
    --fec reed-solomon:k=20,m=4 --drop-rate 0.005 --impair duplicate=0.002,reorder=0.005,jitter=3,burst=6/2000 \
    "${videos[@]}" >"$out/send.log" 2>&1 &
pids+=($!)

# Clients: curl players (one per channel) and one ffmpeg.
for n in 1 2 3 4; do
    in_ns "$here/client.sh" "http://$fan/channels/soak-cam-$n" "$out/clients-$n.count" >"$out/client-$n.log" 2>&1 &
    pids+=($!)
done
# Simulated LL-HLS clients (default 100: ~500 requests/s, so a soak makes hundreds of thousands
# of fan requests; a per-request leak or stack growth shows, as the handler box's once did). They
# all come from 127.0.0.1, so the config above allows more connections per client than the
# default 64.
ll_clients=${LL_CLIENTS:-100}
cc -O2 -o "$out/ll-clients" "$repo/tools/bench/ll/ll-clients.c"
(
    # Start once the channel plays (its playlist lists a part), for what is left of the soak.
    began=$(date +%s)
    until in_ns curl -s -m 2 "http://$fan/channels/soak-cam-2/live.m3u8" | grep -q '^#EXT-X-PRELOAD-HINT'; do
        (( $(date +%s) - began > 60 )) && break
        sleep 1
    done
    left=$(( seconds - ($(date +%s) - began) - 5 ))
    in_ns "$out/ll-clients" 127.0.0.1 "$port" soak-cam-2 "$ll_clients" "$(( left > 10 ? left : 10 ))" >"$out/ll-clients.log" 2>&1
) &
ll_pid=$!
(
    while true; do
        in_ns ffmpeg -nostdin -loglevel error -i "http://$fan/channels/soak-cam-1/live.m3u8" -t 60 -c copy -f null - \
            >>"$out/ffmpeg.log" 2>&1 || echo "ffmpeg exit $?" >>"$out/ffmpeg.log"
        sleep 1
    done
) &
pids+=($!)

ticks=$(getconf CLK_TCK)
echo "t,rss_kb,fds,threads,cpu_pct,http_ok,http_err,daemon_alive,packets_received,window_recovery_successes,window_recovery_failures,rtp_packets_lost,hls_segments,pcap_dropped_kernel" >"$out/samples.csv"
start=$(date +%s)
last_cpu=0 last_t=$start
crashed=0
echo "soak: daemon pid $daemon, $seconds s, samples every $interval s into $out/samples.csv"
while true; do
    now=$(date +%s)
    t=$(( now - start ))
    if ! kill -0 "$daemon" 2>/dev/null; then
        crashed=1
        wait "$daemon" && status=0 || status=$?
        echo "soak: the daemon exited (status $status) after $t s" | tee -a "$out/daemon.log" >&2
        echo "$t,0,0,0,0,0,0,0,,,,,," >>"$out/samples.csv"
        break
    fi
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$daemon/status")
    threads=$(awk '/^Threads:/ {print $2}' "/proc/$daemon/status")
    fds=$(ls "/proc/$daemon/fd" | wc -l)
    read -r utime stime < <(awk '{print $14, $15}' "/proc/$daemon/stat")
    cpu=$(( utime + stime ))
    cpu_pct=0
    (( now > last_t )) && cpu_pct=$(( (cpu - last_cpu) * 100 / ticks / (now - last_t) ))
    last_cpu=$cpu last_t=$now
    ok=0 err=0
    for n in 1 2 3 4; do
        [[ -f $out/clients-$n.count ]] && read -r o e <"$out/clients-$n.count" && ok=$((ok + o)) err=$((err + e))
    done
    stats=$(in_ns curl -s -m 2 -H "Authorization: Bearer $token" "http://$mgmt/api/v1/stats" || true)
    counters=$(python3 "$here/stats.py" <<<"$stats")
    (( t == 0 )) || echo "$t,$rss,$fds,$threads,$cpu_pct,$ok,$err,1,$counters" >>"$out/samples.csv"
    (( t >= seconds )) && break
    sleep "$interval"
done
# The stop under load: SIGTERM while the streamer and the players still run, timed to the
# daemon's exit (systemd gives it TimeoutStopSec=20 s; the service runtime's contract is 2 s).
stop=()
if (( ! crashed )); then
    t0=$(date +%s%N)
    kill -TERM "$daemon"
    wait "$daemon" && status=0 || status=$?
    stop_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "soak: SIGTERM to exit took $stop_ms ms (exit status $status)"
    stop=(--stop-ms "$stop_ms" --stop-status "$status")
fi
tail -3 "$out/send.log" >"$out/send-tail.log" 2>/dev/null || true
wait "$ll_pid" 2>/dev/null || true
# The LL clients' line: every client still connected and no error, or the soak fails.
ll_line=$(tail -1 "$out/ll-clients.log" 2>/dev/null || true)
echo "soak: LL clients: ${ll_line:-no result}"
ll_ok=0
[[ $ll_line == "clients=$ll_clients open=$ll_clients "* && $ll_line == *" errors=0" ]] && ll_ok=1
python3 "$here/report.py" "$out/samples.csv" --out "$out/summary.md" --crashed "$crashed" --max-growth "$growth" \
    --daemon-log "$out/daemon.log" "${warmup[@]}" "${stop[@]}" "${assert[@]}" && report=0 || report=$?
if (( ${#assert[@]} )) && (( ! ll_ok )); then
    echo "soak: FAIL: the LL clients lost connections or saw errors: ${ll_line:-no result}" | tee -a "$out/summary.md" >&2
    exit 1
fi
exit "$report"
