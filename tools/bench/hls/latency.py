#!/usr/bin/env python3
"""LL-HLS client latency against a running gateway (stdlib only).

Acts as an LL-HLS player that reads parts: loads live.m3u8, then repeatedly requests the
preload-hinted part (the gateway holds the request until the part is published), and notes the
wall-clock time R each part's bytes are in hand. From the playlist's EXT-X-PROGRAM-DATE-TIME
(anchored to the capture time of the segment's first packet, so it is the arrival time of the
part's first frame at the gateway) it reports, per part:
  after-end = R - (PDT(part) + duration): gateway + HTTP delay after the part's last frame arrived
  glass     = R - PDT(part): first frame of the part at the gateway's input -> in the client's hands
A player honouring PART-HOLD-BACK starts PART-HOLD-BACK behind the live edge; that is added
for the "player" figure.
  latency.py BASE_URL CHANNEL_ID [PARTS=250]
"""
import re
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime


def get(url, missing_ok=False):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        if missing_ok and error.code == 404:
            return None   # a hinted part its segment ended without: reload the playlist
        raise SystemExit(f"GET {url}: {error}")


def parse(text):
    """Parts with their PDT (seconds), duration and URI; the preload hint; PART-HOLD-BACK."""
    parts, pdt, hint, hold = {}, None, None, None
    for line in text.splitlines():
        if line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            pdt = datetime.fromisoformat(line.split(":", 1)[1].replace("Z", "+00:00")).timestamp()
        elif line.startswith("#EXT-X-PART:"):
            duration = float(re.search(r"DURATION=([0-9.]+)", line).group(1))
            uri = re.search(r'URI="([^"]+)"', line).group(1)
            if pdt is not None:
                parts[uri] = (pdt, duration)
                pdt += duration
        elif line.startswith("#EXTINF:"):
            pdt = None   # the next segment carries its own PDT
        elif line.startswith("#EXT-X-PRELOAD-HINT:"):
            hint = re.search(r'URI="([^"]+)"', line).group(1)
        elif line.startswith("#EXT-X-SERVER-CONTROL:"):
            match = re.search(r"PART-HOLD-BACK=([0-9.]+)", line)
            hold = float(match.group(1)) if match else None
    return parts, hint, hold


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p * len(ordered) + 0.4999)) - 1))]


def main():
    base, channel = sys.argv[1].rstrip("/"), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 250
    prefix = f"{base}/channels/{channel}/"
    after_end, glass = [], []
    _, hint, hold = parse(get(prefix + "live.m3u8").decode())
    get(prefix + hint, missing_ok=True) if hint else None      # start on a part boundary
    _, hint, hold = parse(get(prefix + "live.m3u8").decode())
    while len(after_end) < count:
        if hint is None:
            time.sleep(0.05)
            _, hint, hold = parse(get(prefix + "live.m3u8").decode())
            continue
        if get(prefix + hint, missing_ok=True) is None:   # held until published
            _, hint, hold = parse(get(prefix + "live.m3u8").decode())
            continue
        at = time.time()
        parts, next_hint, hold = parse(get(prefix + "live.m3u8").decode())
        if hint in parts:
            pdt, duration = parts[hint]
            after_end.append((at - pdt - duration) * 1000)
            glass.append((at - pdt) * 1000)
        hint = next_hint
    if not after_end:
        sys.exit("no part timings: the parts fell out of the playlist")

    def row(name, values):
        print(f"{name}: n={len(values)} median {percentile(values, 0.5):.0f} ms, p90 {percentile(values, 0.9):.0f}, "
              f"p99 {percentile(values, 0.99):.0f}, max {max(values):.0f}")
    row("part in client's hands after its last frame arrived", after_end)
    row("glass-to-glass (part's first frame at the gateway -> client has the part)", glass)
    if hold is not None:
        print(f"a player starting PART-HOLD-BACK={hold:.3f} s behind the live edge: ~{hold * 1000 + percentile(glass, 0.5):.0f} ms "
              "glass-to-glass at the median, plus encoder and decoder")


if __name__ == "__main__":
    main()
