#!/usr/bin/env bash
# Ingest benchmark (docs/performance.md, "Ingest"): over the same generated venue capture, with the
# same BPF filter, alternately, RUNS times each, pinned to one core:
#   raw     a plain libpcap read loop (tools/bench/pcap-read.c): the reference;
#   path    the pure packet path, like with like (`ingest-bench`, tools/bench/ingest): libpcap read
#           through the Capture adapter -> FrameDecoder -> IngestPipeline, no output, no HLS
#           packaging, no video health. Its ratio to raw is the headline (target >= 0.50);
#   replay  `grandstand replay`, the whole offline product (pipeline plus TS/data/event files, HLS
#           packaging and the video health check), once writing to a tmpfs (/dev/shm: the disk is
#           not measured) and once to a directory on disk (under the cache folder).
# Prints packets/s per run, the medians and their ratios to raw.
#
# Environment: RUNS (default 5), PACKETS (video RTP packets in the capture, default 200000),
# CPU (core to pin to, default 1), GRANDSTAND_CACHE (default ./.cache), SWIFT (default swift),
# BENCH_FILTER (overrides the filter replay reports), SKIP_BUILD=1 (use the existing release builds),
# GRANDSTAND_BIN (measure this grandstand binary instead of building one, e.g. an older build),
# INGEST_BENCH_BIN (likewise for the packet path).
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-5}
PACKETS=${PACKETS:-200000}
CPU=${CPU:-1}
SWIFT=${SWIFT:-swift}
CACHE=${GRANDSTAND_CACHE:-$PWD/.cache}
WORK="$CACHE/bench"
CAPTURE_DIR="$WORK/capture-$PACKETS"
TMPFS_OUT="/dev/shm/grandstand-bench-$$"
DISK_OUT="$WORK/out-$$"
mkdir -p "$WORK"
trap 'rm -rf "$TMPFS_OUT" "$DISK_OUT"' EXIT

# A release binary of PRODUCT (built unless SKIP_BUILD=1), or $2 when given.
release_binary() {
    if [[ -n "$2" ]]; then echo "$2"; return; fi
    if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
        echo "== release build of $1" >&2
        "$SWIFT" build -c release --product "$1" >&2
    fi
    echo "$("$SWIFT" build -c release --show-bin-path)/$1"
}
BIN=$(release_binary grandstand "${GRANDSTAND_BIN:-}")
PATH_BIN=$(release_binary ingest-bench "${INGEST_BENCH_BIN:-}")
for binary in "$BIN" "$PATH_BIN"; do
    [[ -x "$binary" ]] || { echo "ingest.sh: no release binary at $binary" >&2; exit 1; }
done

GENERATOR=tools/bench/make-bench-capture.py
if [[ ! -s "$CAPTURE_DIR/bench.pcap" || "$GENERATOR" -nt "$CAPTURE_DIR/bench.pcap" ]]; then
    echo "== generating $CAPTURE_DIR/bench.pcap ($PACKETS video packets)" >&2
    mkdir -p "$CAPTURE_DIR"
    python3 "$GENERATOR" "$CAPTURE_DIR" "$PACKETS" >&2
fi
READER="$WORK/pcap-read"
if [[ ! -x "$READER" || tools/bench/pcap-read.c -nt "$READER" ]]; then
    gcc -O2 -Wall -o "$READER" tools/bench/pcap-read.c -lpcap
fi
PCAP="$CAPTURE_DIR/bench.pcap"
CONFIG="$CAPTURE_DIR/config.json"
cat "$PCAP" > /dev/null   # into the page cache: both readers see the same warm file
# The filter: what the daemon would install once the capture's channels are known
# (CaptureFilter over the pipeline's endpoints), as an untimed first replay reports it.
if [[ -n "${BENCH_FILTER:-}" ]]; then
    FILTER=$BENCH_FILTER
else
    FILTER=$("$BIN" replay --pcap "$PCAP" --config "$CONFIG" --out "$TMPFS_OUT" | sed -n 's/^capture filter for the channels known at the end: //p')
    [[ -n "$FILTER" ]] || { echo "ingest.sh: replay reported no capture filter" >&2; exit 1; }
fi

# One raw run: prints "packets rate".
raw() {
    local line
    line=$(taskset -c "$CPU" "$READER" "$PCAP" "$FILTER")
    local packets=${line#packets=}; packets=${packets%% *}
    local rate=${line#*packets_per_second=}; rate=${rate%% *}
    echo "$packets $rate"
}

# One packet-path run: prints "packets rate" (the same line format as the raw reader).
path_run() {
    local line
    line=$(taskset -c "$CPU" "$PATH_BIN" "$PCAP" "$CONFIG" "$FILTER")
    local packets=${line#packets=}; packets=${packets%% *}
    local rate=${line#*packets_per_second=}; rate=${rate%% *}
    echo "$packets $rate"
}

# One replay run into $1: prints "packets rate" from replay's own summary line.
replay() {
    rm -rf "$1"
    local line
    line=$(taskset -c "$CPU" "$BIN" replay --pcap "$PCAP" --config "$CONFIG" --filter "$FILTER" --out "$1" | head -1)
    local packets=${line#replayed }; packets=${packets%% *}
    local rate=${line##*(}; rate=${rate%% frames/s)}
    echo "$packets $rate"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

RAW=() PATHS=() TMPFS=() DISK=()
echo "== $RUNS alternating runs on CPU $CPU: $(wc -c < "$PCAP") bytes, filter: $FILTER" >&2
printf '%-6s %12s %12s %18s %18s\n' run raw_pps path_pps replay_tmpfs_pps replay_disk_pps
for ((i = 1; i <= RUNS; i++)); do
    read -r raw_packets raw_rate < <(raw)
    read -r path_packets path_rate < <(path_run)
    read -r tmpfs_packets tmpfs_rate < <(replay "$TMPFS_OUT")
    read -r disk_packets disk_rate < <(replay "$DISK_OUT")
    if [[ "$raw_packets" != "$path_packets" || "$raw_packets" != "$tmpfs_packets" || "$raw_packets" != "$disk_packets" ]]; then
        echo "ingest.sh: packet counts differ: raw $raw_packets, path $path_packets, replay $tmpfs_packets / $disk_packets" >&2
        exit 1
    fi
    RAW+=("$raw_rate") PATHS+=("$path_rate") TMPFS+=("$tmpfs_rate") DISK+=("$disk_rate")
    printf '%-6s %12s %12s %18s %18s\n' "$i" "$raw_rate" "$path_rate" "$tmpfs_rate" "$disk_rate"
done
raw_median=$(printf '%s\n' "${RAW[@]}" | median)
path_median=$(printf '%s\n' "${PATHS[@]}" | median)
tmpfs_median=$(printf '%s\n' "${TMPFS[@]}" | median)
disk_median=$(printf '%s\n' "${DISK[@]}" | median)
printf '%-6s %12s %12s %18s %18s\n' median "$raw_median" "$path_median" "$tmpfs_median" "$disk_median"
echo "packets per run: $raw_packets (of $(taskset -c "$CPU" "$READER" "$PCAP" | sed 's/^packets=\([0-9]*\).*/\1/') frames in the file)"
awk -v r="$raw_median" -v p="$path_median" -v t="$tmpfs_median" -v d="$disk_median" 'BEGIN {
    printf "ratio packet path/raw: %.2f (target >= 0.50)\n", p / r
    printf "ratio replay/raw (pipeline + output files + HLS packaging + video health): tmpfs output %.2f, disk output %.2f\n", t / r, d / r }'
