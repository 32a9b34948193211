#!/usr/bin/env bash
# Makes tools/samples/clean.ts, the project's "clean.stream": a short H.264/AAC MPEG-TS that every
# streamer, ingest and HLS test uses. Needs Debian's ffmpeg (libx264) and fonts-dejavu-core.
# Deterministic on one machine (-bitexact, one x264 thread); re-running on another ffmpeg build
# may change bytes, so the committed file is the fixture, this script is its recipe.
# Variants for benchmarks (defaults give clean.ts): SAMPLE_SIZE=1280x720 SAMPLE_VIDEO_KBPS=4700
# SAMPLE_MUX_KBPS=5000 SAMPLE_SECONDS=20 make-sample.sh OUT (a 5 Mbit/s channel, tools/bench/memory).
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-clean.ts}
font=/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf
[ -r "$font" ] || { echo "missing $font (apt-get install fonts-dejavu-core)" >&2; exit 1; }

seconds=${SAMPLE_SECONDS:-20} fps=25
size=${SAMPLE_SIZE:-640x360} vkbps=${SAMPLE_VIDEO_KBPS:-700} muxkbps=${SAMPLE_MUX_KBPS:-900}
# Video: SMPTE HD bars, a running clock (pts as hh:mm:ss.ms) and a frame counter burnt in,
# so a viewer sees stalls and skips at a glance. Audio: 1 kHz sine, beeping once a second.
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "smptehdbars=size=${size}:rate=${fps},drawtext=fontfile=${font}:fontsize=40:fontcolor=white:box=1:boxcolor=black@0.7:x=(w-tw)/2:y=h/2-th:text='%{pts\\:hms}',drawtext=fontfile=${font}:fontsize=28:fontcolor=yellow:box=1:boxcolor=black@0.7:x=(w-tw)/2:y=h/2+20:text='frame %{frame_num}'" \
  -f lavfi -i "sine=frequency=1000:beep_factor=4:sample_rate=48000" \
  -t "$seconds" \
  -map 0:v -map 1:a \
  -c:v libx264 -profile:v main -preset veryfast -tune zerolatency -threads 1 -pix_fmt yuv420p \
  -g "$fps" -keyint_min "$fps" -sc_threshold 0 -bf 0 \
  -b:v ${vkbps}k -maxrate ${vkbps}k -bufsize ${vkbps}k -x264-params "nal-hrd=cbr:open-gop=0:force-cfr=1" \
  -c:a aac -b:a 64k -ac 2 \
  -f mpegts -muxrate ${muxkbps}k -pcr_period 20 -mpegts_flags +resend_headers \
  -mpegts_service_id 1 -metadata service_name=Grandstand -metadata service_provider=Grandstand \
  -fflags +bitexact -flags:v +bitexact -flags:a +bitexact \
  "$out"
ls -l "$out"
