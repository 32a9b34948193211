#!/usr/bin/env bash
# Memory of the gateway serving N live channels of ~5 Mbit/s with a full rewind window:
# `grandstand run` (release build) captures `grandstand send --loop` on loopback inside a private
# network namespace; after the window has filled, VmRSS of the daemon is sampled next to the
# bytes its windows hold (sum of hls_bytes_held from /api/v1/stats). Segments live in memory
# files (memfd) that are not mapped, so not in VmRSS: their allocated pages are added ("memory" =
# VmRSS + memfd). Target (issue 6): memory <= 64 MB + 1.1 x buffered bytes. Needs root (ip netns), ffmpeg + libx264 for the sample.
# Measure the binary as it ships: the product is linked with --static-swift-stdlib
# (packaging/package.mk, cross/build.sh); a dynamically linked build maps the Swift runtime's
# shared libraries too (~2 MB more file-backed RSS, docs/performance.md "Session 6: memory").
# The last line breaks the final sample's RSS down by mapping (/proc/PID/smaps).
# With CMAF on (CMAF=true, the default) each channel holds a TS and a CMAF window of the same
# segments: both are counted in "held", and their ratio (CMAF/TS) is printed per sample.
#   tools/bench/memory/run.sh [CHANNELS=4] [HEALTH=true|false]
# Env: GRANDSTAND_BIN (default .build/release/grandstand), SETTLE (seconds before sampling,
# default 45), SAMPLES (default 6, 5 s apart), WINDOW (rewindWindowSeconds, default 30).
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
channels=${1:-4}
health=${2:-true}
cache=${GRANDSTAND_CACHE:-$here/.cache}/bench-memory
bin=${GRANDSTAND_BIN:-$here/.build/release/grandstand}
settle=${SETTLE:-45}
samples=${SAMPLES:-6}
window=${WINDOW:-30}
mkdir -p "$cache"
[ -x "$bin" ] || { echo "no $bin: swift build -c release --product grandstand --static-swift-stdlib" >&2; exit 1; }
if ldd "$bin" | grep -q libswiftCore; then linkage="Swift runtime shared (not as shipped)"; else linkage="Swift runtime static (as shipped)"; fi

sample=$cache/sample-5M.ts
if [ ! -s "$sample" ]; then
    SAMPLE_SIZE=1280x720 SAMPLE_VIDEO_KBPS=4700 SAMPLE_MUX_KBPS=5000 SAMPLE_SECONDS=20 \
        "$here/tools/samples/make-sample.sh" "$sample" >/dev/null
fi

# shellcheck source=tools/bench/netns.sh
source "$here/tools/bench/netns.sh"
bench_netns gs-mem "$(mktemp -d "$cache/run-XXXXXX")"

cat >"$work/config.json" <<EOF
{"license":{"venueName":"Demo Stadium","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
 "network":{"interface":"lo","wifiInterface":null},
 "listeners":{"fan":"127.0.0.1:18080","management":"127.0.0.1:18081"},
 "management":{"token":"bench"},
 "discovery":{"sapGroups":["239.255.255.255"]},
 "hls":{"rewindWindowSeconds":$window,"videoHealth":$health,"cmaf":${CMAF:-true}}}
EOF
ip netns exec "$ns" "$bin" run --config "$work/config.json" >"$work/run.log" 2>&1 &
run_pid=$!
sleep 1
send_args=(send --interface lo --loop --sap-interval 1)
for i in $(seq 1 "$channels"); do send_args+=(--video "Ch$i=$sample@239.255.20.$i:$((5000 + 10 * i))"); done
ip netns exec "$ns" "$bin" "${send_args[@]}" >"$work/send.log" 2>&1 &
send_pid=$!

stats() { ip netns exec "$ns" curl -s -H "Authorization: Bearer bench" http://127.0.0.1:18081/api/v1/stats; }
echo "channels=$channels health=$health window=${window}s sample=$(stat -c %s "$sample") bytes/20 s; $linkage; settling ${settle}s"
sleep "$settle"
python3 - "$run_pid" "$samples" "$ns" <<'PY'
import json, os, subprocess, sys, time
pid, samples, ns = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def status(key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"): return int(line.split()[1]) * 1024
    return 0
def memfd():
    total = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:"):
                total += os.stat(f"/proc/{pid}/fd/{fd}").st_blocks * 512
        except OSError:
            pass
    return total
def rss(): return status("VmRSS")
def stats():
    out = subprocess.run(["ip", "netns", "exec", ns, "curl", "-s", "-H", "Authorization: Bearer bench",
                          "http://127.0.0.1:18081/api/v1/stats"], capture_output=True, text=True).stdout
    return json.loads(out)
rows = []
for i in range(samples):
    s = stats()
    ch = {k: v for k, v in s.get("channels", {}).items() if "hls_bytes_held" in v}
    ts_held = sum(v["hls_bytes_held"] for v in ch.values())
    cmaf_held = sum(v.get("cmaf_bytes_held", 0) for v in ch.values())
    held = ts_held + cmaf_held
    files = memfd()
    r = rss() + files
    budget = 64e6 + 1.1 * held
    dropped = sum(v.get("num_dropped_video_frames", 0) for v in ch.values())
    skipped = sum(v.get("video_frames_skipped", 0) for v in ch.values())
    decoded = sum(v.get("video_frames_decoded", 0) for v in ch.values())
    rows.append((r, held, budget))
    print(f"sample {i}: channels {len(ch)} memory {r/1e6:.1f} MB (memfd {files/1e6:.1f}), held {held/1e6:.1f} MB "
          f"(TS {ts_held/1e6:.1f}, CMAF {cmaf_held/1e6:.1f}: CMAF/TS {cmaf_held / ts_held if ts_held else 0:.3f}), budget {budget/1e6:.1f} MB, "
          f"memory - 1.1 x held = {(r - 1.1*held)/1e6:.1f} MB (anon {status('RssAnon')/1e6:.1f}, "
          f"file {status('RssFile')/1e6:.1f}, shmem {status('RssShmem')/1e6:.1f}); decoded {decoded}, dropped {dropped} (skipped {skipped})", flush=True)
    if i + 1 < samples: time.sleep(5)
def breakdown():
    # Anonymous pages (malloc heaps and mmaps, thread stacks, and the copy-on-write pages of the
    # libraries' relocations) vs file-backed pages per mapping kind.
    anon = {"heap": 0, "anonymous mmaps": 0, "library COW": 0}; files = {}; name = ""
    for line in open(f"/proc/{pid}/smaps"):
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            name = fields[5] if len(fields) > 5 else ""
        elif fields[0] in ("Rss:", "Anonymous:"):
            kb = int(fields[1]) * 1024
            if fields[0] == "Anonymous:":
                key = "heap" if name == "[heap]" else "anonymous mmaps" if name in ("", "[stack]") else "library COW"
                anon[key] += kb
                if name.startswith("/"): files[name] = files.get(name, 0) - kb
            elif name.startswith("/") and not name.startswith("/memfd"):
                files[name] = files.get(name, 0) + kb
            elif name.startswith("socket:"):
                files["capture ring"] = files.get("capture ring", 0) + kb
    top = sorted(files.items(), key=lambda kv: -kv[1])
    return (" ".join(f"{k} {v/1e6:.1f}" for k, v in anon.items()) + f"; file-backed {sum(files.values())/1e6:.1f} MB in {len(files)} mappings, largest: "
            + ", ".join(f"{os.path.basename(k)} {v/1e6:.1f}" for k, v in top[:6]))
print("breakdown (MB): " + breakdown())
worst = max(r - 1.1 * h for r, h, _ in rows)
print(f"max memory (RSS + memfd) {max(r for r,_,_ in rows)/1e6:.1f} MB; max memory - 1.1 x held {worst/1e6:.1f} MB (target <= 64 MB): "
      + ("PASS" if worst <= 64e6 else "OVER"))
PY
