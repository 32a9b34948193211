#!/usr/bin/env bash
# HTTP benchmark: the fan listener (`grandstand bench-fan`, release build: the real FanRoutes,
# VideoChannel and our epoll engine over a packaged sample) against nginx serving the same
# playlist and segment bytes as files, in the same run, each pinned to the same one core
# (SERVER_CPU), wrk pinned to another (WRK_CPU). For each connection count: playlist requests/s,
# segment bytes/s and p99 latency of both, and the ratios. Prints a Markdown table.
#
# Environment: CONNECTIONS (default "50 500"), SECONDS_EACH (default 8), ROUNDS (default 3; the
# servers alternate within each round; the median round of each counts, by rate),
# SERVER_CPU (default 0), WRK_CPU (default 1), GRANDSTAND_CACHE (default ./.cache), SWIFT,
# SKIP_BUILD=1 (use the existing release build), GRANDSTAND_BIN (measure this binary), FAN_ARGS
# (more bench-fan options, e.g. "--storage array" to answer segments from memory instead of
# sendfile).
set -euo pipefail
cd "$(dirname "$0")/../../.."

CONNECTIONS=${CONNECTIONS:-"50 500"}
SECONDS_EACH=${SECONDS_EACH:-8}
ROUNDS=${ROUNDS:-3}
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
SWIFT=${SWIFT:-swift}
CACHE=${GRANDSTAND_CACHE:-$PWD/.cache}
WORK="$CACHE/bench-http/run-$$"
FAN_PORT=${FAN_PORT:-18680}
NGINX_PORT=${NGINX_PORT:-18690}
SEGMENT=seg3.ts
mkdir -p "$WORK/www/channels/cam" "$WORK/nginx"
FAN_PID= NGINX_PID=
cleanup() {
    [[ -n "$FAN_PID" ]] && kill "$FAN_PID" 2>/dev/null || true
    [[ -n "$NGINX_PID" ]] && kill "$NGINX_PID" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

for tool in wrk nginx taskset curl; do
    command -v "$tool" >/dev/null || { echo "http/run.sh: $tool missing (make deps installs wrk, nginx-light, util-linux, curl)" >&2; exit 1; }
done
if [[ -n "${GRANDSTAND_BIN:-}" ]]; then
    BIN=$GRANDSTAND_BIN
else
    if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
        echo "== release build" >&2
        "$SWIFT" build -c release --product grandstand >&2
    fi
    BIN="$("$SWIFT" build -c release --show-bin-path)/grandstand"
fi
[[ -x "$BIN" ]] || { echo "http/run.sh: no release binary at $BIN" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# The fan listener: one listener thread, on SERVER_CPU with every other thread of the process.
taskset -c "$SERVER_CPU" "$BIN" bench-fan --fan "127.0.0.1:$FAN_PORT" --segments 6 ${FAN_ARGS:-} > "$WORK/fan.log" 2>&1 &
FAN_PID=$!
for _ in $(seq 100); do grep -q '^ready' "$WORK/fan.log" 2>/dev/null && break; sleep 0.1; done
grep -q '^ready' "$WORK/fan.log" || { cat "$WORK/fan.log" >&2; echo "http/run.sh: bench-fan did not start" >&2; exit 1; }
STORAGE=$(sed -n 's/^ready .* storage=\([a-z]*\).*/\1/p' "$WORK/fan.log")
ENGINE_NAME="epoll engine, segments from ${STORAGE:-?}"
echo "fan listener: $ENGINE_NAME" >&2
FAN="http://127.0.0.1:$FAN_PORT/channels/cam"
curl -sf -o "$WORK/www/channels/cam/live.m3u8" "$FAN/live.m3u8"
curl -sf -o "$WORK/www/channels/cam/$SEGMENT" "$FAN/$SEGMENT"

# nginx as Debian ships it, tuned the usual way for static files: one worker, sendfile,
# keep-alive without a request cap, no access log.
cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 4096; }
http {
    types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    access_log off;
    client_body_temp_path $WORK/nginx;
    proxy_temp_path $WORK/nginx;
    fastcgi_temp_path $WORK/nginx;
    uwsgi_temp_path $WORK/nginx;
    scgi_temp_path $WORK/nginx;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/www;
        location ~ \.m3u8\$ { add_header Cache-Control no-cache; }
    }
}
CONF
taskset -c "$SERVER_CPU" nginx -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" &
NGINX_PID=$!
NGINX="http://127.0.0.1:$NGINX_PORT/channels/cam"
for _ in $(seq 50); do curl -sf -o /dev/null "$NGINX/live.m3u8" && break; sleep 0.1; done
cmp -s <(curl -sf "$NGINX/$SEGMENT") <(curl -sf "$FAN/$SEGMENT") || { echo "http/run.sh: nginx and the fan listener differ" >&2; exit 1; }

PLAYLIST_BYTES=$(stat -c %s "$WORK/www/channels/cam/live.m3u8")
SEGMENT_BYTES=$(stat -c %s "$WORK/www/channels/cam/$SEGMENT")

# One wrk run → "requests/s bytes/s p99_ms" (wrk's Transfer/sec and latency units normalised).
measure() {
    local url=$1 connections=$2 threads=1
    (( connections > 100 )) && threads=2
    taskset -c "$WRK_CPU" wrk -t"$threads" -c"$connections" -d"${SECONDS_EACH}s" --latency "$url" 2>&1 | awk '
        function bytes(v) { if (v ~ /GB$/) return v * 1073741824; if (v ~ /MB$/) return v * 1048576; if (v ~ /KB$/) return v * 1024; return v + 0 }
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /^Requests\/sec:/ { rps = $2 }
        /^Transfer\/sec:/ { bps = bytes($2) }
        /^ +99%/ { p99 = ms($2) }
        /Non-2xx|Socket errors/ { errors = errors $0 " " }
        END { printf "%.0f %.0f %.2f %s\n", rps, bps, p99, (errors == "" ? "-" : errors) }'
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A runs best
better() {  # collects the runs per key; `best` becomes the median run by rate
    local key=$1 line=$2
    runs[$key]+="$line"$'\n'
    best[$key]=$(printf '%s' "${runs[$key]}" | sort -n -k1,1 | awk '{ lines[NR] = $0 } END { print lines[int((NR + 1) / 2)] }')
}
for round in $(seq "$ROUNDS"); do
    for c in $CONNECTIONS; do
        for server in fan nginx; do
            base=$FAN; [[ $server == nginx ]] && base=$NGINX
            line=$(measure "$base/live.m3u8" "$c"); echo "round $round c=$c $server playlist: $line" >&2; better "$server playlist $c" "$line"
            line=$(measure "$base/$SEGMENT" "$c"); echo "round $round c=$c $server segment: $line" >&2; better "$server segment $c" "$line"
        done
    done
done

echo "load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "HTTP benchmark: fan listener ($ENGINE_NAME, 1 thread) vs $(nginx -v 2>&1 | sed 's/nginx version: //') (1 worker, sendfile), both on CPU $SERVER_CPU; wrk on CPU $WRK_CPU; ${SECONDS_EACH} s per run, median of $ROUNDS rounds"
echo "playlist $PLAYLIST_BYTES B, segment $SEGMENT_BYTES B"
echo
echo "| connections | resource | fan req/s | nginx req/s | ratio | fan MB/s | nginx MB/s | ratio | fan p99 ms | nginx p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in $CONNECTIONS; do
    for resource in playlist segment; do
        read -r frps fbps fp99 ferr <<<"${best[fan $resource $c]}"
        read -r nrps nbps np99 nerr <<<"${best[nginx $resource $c]}"
        awk -v c="$c" -v r="$resource" -v frps="$frps" -v nrps="$nrps" -v fbps="$fbps" -v nbps="$nbps" -v fp="$fp99" -v np="$np99" 'BEGIN {
            printf "| %s | %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f | %s | %s |\n", c, r, frps, nrps, (nrps > 0 ? frps / nrps : 0),
                   fbps / 1048576, nbps / 1048576, (nbps > 0 ? fbps / nbps : 0), fp, np }'
        if [[ "$ferr" != "-" ]]; then echo "fan errors at c=$c $resource: $ferr" >&2; fi
        if [[ "$nerr" != "-" ]]; then echo "nginx errors at c=$c $resource: $nerr" >&2; fi
    done
done
