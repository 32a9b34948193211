#!/usr/bin/env python3
"""Drives the fan app (web/fan/) in headless Debian Chromium (/usr/bin/chromium) with Playwright
from PyPI (tools/requirements.txt; never a downloaded browser) and prints one JSON object of
measurements on stdout. FanAppBrowserTests runs it inside the gateway's network namespace and
asserts on the numbers; docs/fan-app.md describes the scenarios.

  fan_app.py --url http://127.0.0.1:PORT/ --shots DIR [--scenario tour|soak|latency] [--seconds N]

tour    every channel plays 20 s (currentTime advancing, dropped frames), "Back 10 seconds" and
        "Go live", channel switches, latency samples (the default suite's scenario)
soak    one channel for --seconds (300), counting stalls
latency one channel for --seconds (60), latency samples only
Every wait is on a condition in the page (wait_for_function), bounded by a timeout."""
import argparse, json, os, sys, time
from playwright.sync_api import sync_playwright

SAMPLER = """() => {
  if (window.__gs) return;
  window.__gs = { samples: [], states: {} };
  setInterval(() => {
    const box = document.querySelector('section.channel[data-player]');
    if (!box) return;
    const v = box.querySelector('video');
    const s = box.dataset.player;
    window.__gs.states[s] = (window.__gs.states[s] || 0) + 1;
    window.__gs.samples.push({ at: performance.now(), id: box.id, state: s, latency: +box.dataset.latencyMs,
                               time: v ? v.currentTime : null, live: window.grandstand.player ? window.grandstand.player.live : null,
                               stalls: +(box.dataset.stalls || 0), rs: v ? v.readyState : null,
                               ranges: v ? [...Array(v.buffered.length).keys()].map(i => [v.buffered.start(i), v.buffered.end(i)]).slice(-2) : null });
  }, 200);
}"""

def percentile(values, p):
    if not values: return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

def summary(values):
    return {"n": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95), "p99": percentile(values, 99),
            "max": max(values) if values else None}

class Fan:
    def __init__(self, page, shots, events):
        self.page, self.shots, self.events = page, shots, events

    def js(self, script, arg=None):
        return self.page.evaluate(script, arg)

    def wait(self, script, arg=None, timeout=30):
        self.page.wait_for_function(script, arg=arg, timeout=timeout * 1000, polling=100)

    def shot(self, name):
        self.page.screenshot(path=os.path.join(self.shots, name + ".png"))

    def active(self):
        return self.js("() => { const b = document.querySelector('section.channel[data-player]'); return b ? b.id.slice(8) : null; }")

    def wait_playing(self, cid, timeout=30):
        self.wait("id => { const b = document.getElementById('channel-' + id); return b && b.dataset.player === 'playing' && b.dataset.latencyMs; }",
                  cid, timeout)

    def switch(self, cid):
        """Clicks a channel's Watch button; the page's own measure is click → first frame playing."""
        started = time.monotonic()
        self.events.append(["switch " + cid, int(self.js("() => performance.now()"))])
        self.page.locator("#channel-" + cid + " button.watch").click()
        self.wait_playing(cid)
        return {"page_ms": int(self.js("id => +document.getElementById('channel-' + id).dataset.switchMs", cid)),
                "driver_ms": int((time.monotonic() - started) * 1000)}

    def play_for(self, cid, seconds, timeout):
        """Waits until currentTime advanced `seconds`; returns what the video element says."""
        start = self.js("() => document.querySelector('section.channel[data-player] video').currentTime")
        q0 = self.js("() => { const q = document.querySelector('section.channel[data-player] video').getVideoPlaybackQuality(); return [q.totalVideoFrames, q.droppedVideoFrames]; }")
        t0 = time.monotonic()
        self.wait("a => document.querySelector('section.channel[data-player] video').currentTime >= a", start + seconds, timeout)
        end = self.js("() => document.querySelector('section.channel[data-player] video').currentTime")
        q1 = self.js("() => { const q = document.querySelector('section.channel[data-player] video').getVideoPlaybackQuality(); return [q.totalVideoFrames, q.droppedVideoFrames]; }")
        return {"id": cid, "advanced": end - start, "wall": time.monotonic() - t0,
                "frames": q1[0] - q0[0], "dropped": q1[1] - q0[1], "from": start, "to": end}

def steady_latencies(samples, since_ms):
    """Latency samples while playing live, from `since_ms` (page clock) on."""
    return [s["latency"] for s in samples if s["at"] >= since_ms and s["state"] == "playing" and s["live"] and s["latency"] == s["latency"]]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--shots", required=True)
    ap.add_argument("--scenario", default="tour")
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--switches", type=int, default=8)
    args = ap.parse_args()
    os.makedirs(args.shots, exist_ok=True)
    result = {"scenario": args.scenario}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                     args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--disable-gpu"])
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
        page = context.new_page()
        errors, events = [], []
        page.on("pageerror", lambda e: errors.append(str(e)))
        fan = Fan(page, args.shots, events)
        page.goto(args.url)
        fan.js(SAMPLER)
        t_load = time.monotonic()
        fan.wait("() => document.querySelector('section.channel[data-player=playing]')", timeout=45)
        result["first_play_ms"] = int((time.monotonic() - t_load) * 1000)
        ids = fan.js("() => [...document.querySelectorAll('section.channel')].map(b => b.id.slice(8))")
        result["channels"] = ids
        result["target_ms"] = fan.js("() => window.grandstand.player.targetMs()")
        fan.shot("01-live")
        if args.scenario == "tour":
            played, switches, steady = [], [], []
            for i, cid in enumerate(ids):
                if fan.active() != cid:
                    switches.append(fan.switch(cid))
                now = fan.js("() => performance.now()")
                played.append(fan.play_for(cid, 20, 60))
                steady += steady_latencies(fan.js("() => window.__gs.samples"), now + 5000)
                fan.shot("02-channel-%d-%s" % (i, cid))
            result["played"] = played
            # Back 10 seconds → at least 8 s behind; Go live → under the target again.
            events.append(["back", int(fan.js("() => performance.now()"))])
            page.get_by_role("button", name="Back 10 seconds").click()
            t0 = time.monotonic()
            fan.wait("() => +document.querySelector('section.channel[data-player]').dataset.latencyMs >= 8000", timeout=20)
            result["back_ms"] = int((time.monotonic() - t0) * 1000)
            fan.wait("() => document.querySelector('section.channel[data-player]').dataset.player === 'playing'", timeout=20)
            result["back_latency_ms"] = int(fan.js("() => +document.querySelector('section.channel[data-player]').dataset.latencyMs"))
            fan.shot("03-back-10s")
            events.append(["live", int(fan.js("() => performance.now()"))])
            page.get_by_role("button", name="Go live").click()
            t0 = time.monotonic()
            # Under the player's target as it stands (PART-HOLD-BACK, raised 250 ms per stall so far).
            fan.wait("() => { const b = document.querySelector('section.channel[data-player]'); return b.dataset.player === 'playing' && +b.dataset.latencyMs < +b.dataset.targetMs; }",
                     timeout=45)
            result["live_again_ms"] = int((time.monotonic() - t0) * 1000)
            result["live_latency_ms"] = int(fan.js("() => +document.querySelector('section.channel[data-player]').dataset.latencyMs"))
            result["live_target_ms"] = int(fan.js("() => +document.querySelector('section.channel[data-player]').dataset.targetMs"))
            fan.shot("04-go-live")
            for k in range(args.switches):
                switches.append(fan.switch(ids[(ids.index(fan.active()) + 1) % len(ids)]))
            result["switches"] = switches
            result["switch_ms"] = summary([s["page_ms"] for s in switches])
            result["latency_ms"] = summary(steady)
            page.locator("#catalog").scroll_into_view_if_needed()
            fan.shot("05-catalog")
            # What else the page reaches: the scores ticker, the downloads (file channel), the
            # catalog, the recording the demo made (the library refreshes every 30 s).
            fan.wait("() => document.querySelector('#record-links a[href$=\".m3u8\"]')", timeout=40)
            result["library"] = fan.js("""() => ({
                ticker: document.getElementById('ticker').textContent,
                downloads: [...document.querySelectorAll('#files a, #items a')].map(a => a.getAttribute('href')),
                catalog: [...document.querySelectorAll('#results li')].map(li => [li.querySelector('strong').textContent, !!li.querySelector('.badge.live')]),
                recordings: [...document.querySelectorAll('#record-links a')].map(a => a.getAttribute('href')) })""")
            for href in result["library"]["recordings"] + result["library"]["downloads"]:
                response = page.request.get(args.url.rstrip("/") + href)
                result["library"].setdefault("fetched", []).append([href, response.status, len(response.body())])
            page.locator("#recordings").scroll_into_view_if_needed()
            fan.shot("06-recordings")
        else:
            seconds = args.seconds or (300 if args.scenario == "soak" else 60)
            now = fan.js("() => performance.now()")
            result["played"] = [fan.play_for(ids[0], seconds, seconds * 2 + 60)]
            samples = fan.js("() => window.__gs.samples")
            result["latency_ms"] = summary(steady_latencies(samples, now + 5000))
            result["stalled_samples"] = sum(1 for s in samples if s["at"] >= now and s["state"] == "stalled")
            fan.shot("02-after-%ds" % seconds)
        samples = fan.js("() => window.__gs.samples")
        result["stalls"] = max([s["stalls"] for s in samples] or [0])
        # Stalled stretches (page ms, channel) for the log.
        stalled = [s for s in samples if s["state"] == "stalled"]
        result["stalled_at"] = [[int(s["at"]), s["id"]] for s in stalled][:50]
        if stalled:   # what the video element looked like around the first stall
            first = stalled[0]["at"]
            result["stall_context"] = [s for s in samples if first - 1500 <= s["at"] <= first + 1000]
        result["events"] = events
        result["player_log"] = fan.js("() => window.grandstand.log.slice(-60)")
        result["states"] = fan.js("() => window.__gs.states")
        result["page_errors"] = errors
        browser.close()
    print(json.dumps(result))

if __name__ == "__main__":
    main()
