#!/usr/bin/env python3
"""Drives the fan app (web/fan/) in headless Debian Chromium (/usr/bin/chromium) with Playwright
from PyPI (tools/requirements.txt; never a downloaded browser) and prints one JSON object of
measurements on stdout. FanAppBrowserTests runs it inside the gateway's network namespace and
asserts on the numbers; docs/fan-app.md describes the scenarios.

  fan_app.py --url http://127.0.0.1:PORT/ --shots DIR [--scenario tour|soak|latency|break] [--seconds N]
             [--management http://127.0.0.1:PORT --token T]

tour    every channel plays 20 s (currentTime advancing, dropped frames), "Back 10 seconds" and
        "Go live", channel switches, latency samples (the default suite's scenario)
soak    one channel for --seconds (300), counting stalls
latency one channel for --seconds (60), latency samples only
break   one channel through a live break: a wall-clock insert of the demo's recording scheduled
        over the management API a second ahead, played through and past its end
Every wait is on a condition in the page (wait_for_function), bounded by a timeout."""
import argparse, json, os, sys, time, urllib.request
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

def management(args, method, path, body=None):
    request = urllib.request.Request(args.management + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + args.token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()

def play_through_break(fan, args, cid, fetched):
    """Schedules the demo's recording as a wall-clock insert a second ahead on `cid`, plays
    through it and 8 s past its end; returns what the player fetched and how latency held."""
    fan.wait_playing(cid)
    deadline = time.monotonic() + 60
    while True:   # the recording must have ended to be a clip
        status, text = management(args, "POST", "/api/v1/inserts", {"id": "half-time-%d" % int(time.time()), "channel": cid, "position": "wallClock",
                                                                   "at": time.time() + 1.0, "playOnce": True, "clip": {"record": "kick-off"}})
        if status == 201 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    out = {"insert_status": status, "insert": text[:300]}
    if status != 201:
        return out
    seconds = json.loads(text).get("clip", {}).get("durationSeconds") or 4
    started, page_start = time.monotonic(), fan.js("() => performance.now()")
    fan.shot("02-before-break")
    try:
        out["played"] = fan.play_for(cid, seconds + 10, seconds + 60)
    except Exception as e:   # report what happened rather than only a timeout
        out["error"] = str(e).split("\n")[0]
        out["played"] = {"advanced": 0}
    fan.shot("03-after-break")
    breaks = [u for t, u in fetched if t >= started and "/break/" in u]
    out["break_chunks"] = len([u for u in breaks if u.endswith(".m4s")])
    out["break_init"] = len([u for u in breaks if u.endswith("init.mp4")])
    out["break_unique"] = len(set(u for u in breaks if u.endswith(".m4s")))
    out["media_fetched"] = [[round(t - started, 2), u.rsplit("/channels/", 1)[-1]] for t, u in fetched if t >= started - 1][:80]
    # The channel's own media again after the break (its header back, parts fetched).
    last_break = max([t for t, u in fetched if "/break/" in u] or [started])
    out["live_after"] = len([u for t, u in fetched if t > last_break and "/break/" not in u and u.endswith(".m4s")])
    samples = fan.js("() => window.__gs.samples")
    out["latency_ms"] = summary(steady_latencies(samples, page_start))
    out["state"] = fan.js("id => document.getElementById('channel-' + id).dataset.player", cid)
    out["seconds"] = seconds
    out["rewind"] = rewind_past_break(fan, cid, fetched)
    return out

def rewind_past_break(fan, cid, fetched):
    """Rewinds to 1.5 s before the (play-once) break just shown and plays 6 s: the player must
    put the channel's own segments in its place (fetching no break chunk again)."""
    known = fan.js("() => [...window.grandstand.player.breaks.values()].map(b => ({id: b.id, start: b.start, end: b.end, playOnce: b.playOnce, shown: b.shown, segments: [...b.segments.keys()]}))")
    out = {"breaks": known}
    if not known:
        return out
    started = time.monotonic()
    fan.js("pdt => window.grandstand.player.seekToPdt(pdt)", known[0]["start"] - 1500)
    fan.wait("() => !document.querySelector('section.channel[data-player] video').seeking", None, 20)
    try:
        out["played"] = fan.play_for(cid, 6, 30)
    except Exception as e:
        out["error"] = str(e).split("\n")[0]
    after = [u.rsplit("/channels/", 1)[-1] for t, u in fetched if t >= started]
    out["break_fetched"] = len([u for u in after if "/break/" in u])
    own = set("seg%d.m4s" % n for n in known[0]["segments"])
    out["own_fetched"] = len([u for u in after if u.split("/", 1)[-1] in own])
    out["notes"] = [e["kind"] for e in fan.js("() => window.grandstand.log") if e["kind"].startswith("own") or e["kind"].startswith("break")]
    out["state"] = fan.js("id => document.getElementById('channel-' + id).dataset.player", cid)
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--shots", required=True)
    ap.add_argument("--scenario", default="tour")
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--switches", type=int, default=8)
    ap.add_argument("--management", default="http://127.0.0.1:18497")
    ap.add_argument("--token", default="demo")
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
        fetched = []   # [page ms, status, url, bytes] of the media the player fetched
        page.on("requestfinished", lambda r: fetched.append([time.monotonic(), r.url]) if ("/break/" in r.url or r.url.endswith(".m4s")) else None)
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
        elif args.scenario == "break":
            result["break"] = play_through_break(fan, args, ids[0], fetched)
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
