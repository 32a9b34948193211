#!/bin/sh
# Builds the pure HLS core with -O into one binary and measures its throughput on the H.264+AAC
# fixture repeated COPIES times (default 200 = 800 s of media).
#   tools/bench/hls-throughput.sh [COPIES]
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${GRANDSTAND_CACHE:-$here/.cache}/bench
mkdir -p "$out"
cp "$here/tools/bench/hls-throughput.swift" "$out/main.swift"   # top-level code must be main.swift
# shellcheck disable=SC2046
swiftc -O -suppress-warnings -module-name GrandstandBench -o "$out/hls-throughput" \
    $(find "$here/Sources/GrandstandCore" -name '*.swift') "$out/main.swift"
"$out/hls-throughput" "$here/Tests/Fixtures/media/testsrc-160x90-25fps-4s-h264-aac.ts" "${1:-200}"
