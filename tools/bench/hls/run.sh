#!/bin/sh
# Builds the pure HLS core with -O into one binary and measures demux + segment + window +
# playlist throughput on FILE (default tools/samples/clean.ts) repeated COPIES times.
#   tools/bench/hls/run.sh [COPIES] [FILE]
set -eu
here=$(cd "$(dirname "$0")/../../.." && pwd)
out=${GRANDSTAND_CACHE:-$here/.cache}/bench-hls
mkdir -p "$out"
# shellcheck disable=SC2046
swiftc -O -suppress-warnings -module-name GrandstandBench -o "$out/hls-throughput" \
    $(find "$here/Sources/GrandstandCore" -name '*.swift') "$here/tools/bench/hls/main.swift"
"$out/hls-throughput" "${2:-$here/tools/samples/clean.ts}" "${1:-20}"
