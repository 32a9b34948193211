// Grandstand fan app, part 1: shared helpers, the gateway clock, the playlist and ISO BMFF
// readers and the low-latency LL-HLS (CMAF) player on Media Source Extensions. It hands what
// the page needs to app.js (loaded after it) as `window.grandstandPlayer`. No third-party code.
// Design, states and the latency computation: docs/fan-app.md.
'use strict';
(() => {
const MS = window.ManagedMediaSource || window.MediaSource;
const probe = document.createElement('video');
const nativeHLS = probe.canPlayType('application/vnd.apple.mpegurl') !== '';
const params = new URLSearchParams(location.search);
// ?autoplay=0: the page without playing or streams (no request left open: `chromium --dump-dom
// --virtual-time-budget` can finish, DemoEndToEndTests).
const still = params.get('autoplay') === '0';

function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) node.append(kid);
  return node;
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
const seconds = ms => (ms / 1000).toFixed(1) + ' s';

// ---- The gateway's clock: offset = server time − local midpoint of the fastest of 3 requests to
// /time (milliseconds); the Date header (1 s resolution) if /time fails. Refreshed every minute.
const clock = {
  offset: 0, rtt: Infinity, known: false,
  now() { return Date.now() + this.offset; },
  async sync() {
    let best = null;
    for (let i = 0; i < 3; i++) {
      try {
        const t0 = Date.now();
        const r = await fetch('/time', { cache: 'no-store' });
        const text = await r.text();
        const t1 = Date.now();
        let server = Date.parse(text.trim()), rtt = t1 - t0;
        if (isNaN(server)) { server = Date.parse(r.headers.get('Date')) + 500; rtt += 1000; }
        if (!isNaN(server) && (!best || rtt < best.rtt)) best = { rtt, offset: server - (t0 + t1) / 2 };
      } catch (e) { /* keep the last estimate */ }
    }
    if (best) { this.offset = best.offset; this.rtt = best.rtt; this.known = true; }
  },
};
clock.sync();
setInterval(() => clock.sync(), 60000);

// ---- Playlist (RFC 8216bis, what the gateway writes): segments with msn, PDT (ms), duration,
// map URI, gap, discontinuity and parts; the preload hint; server control values.
function attrs(s) {
  const out = {};
  const re = /([A-Z0-9-]+)=("[^"]*"|[^,]*)/g;
  let m;
  while ((m = re.exec(s))) out[m[1]] = m[2].startsWith('"') ? m[2].slice(1, -1) : m[2];
  return out;
}
function partNumbers(uri) {
  const m = /seg(\d+)\.(\d+)\.m4s/.exec(uri || '');
  return m ? { msn: +m[1], part: +m[2] } : null;
}
function parsePlaylist(text) {
  const pl = { segments: [], partTarget: 0.2, holdBack: 0, target: 2, hint: null, ended: false, first: 0, breaks: [] };
  let msn = 0, pdt = null, map = null, disc = false, gap = false, dur = 0, parts = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (line[0] !== '#') {
      pl.segments.push({ msn, uri: line, dur, pdt, map, disc, gap, parts });
      msn++; pdt = null; disc = false; gap = false; parts = []; dur = 0;
      continue;
    }
    const colon = line.indexOf(':');
    const tag = colon < 0 ? line : line.slice(0, colon), v = colon < 0 ? '' : line.slice(colon + 1);
    switch (tag) {
      case '#EXT-X-MEDIA-SEQUENCE': msn = pl.first = parseInt(v, 10); break;
      case '#EXT-X-TARGETDURATION': pl.target = +v; break;
      case '#EXT-X-PART-INF': pl.partTarget = +attrs(v)['PART-TARGET'] || pl.partTarget; break;
      case '#EXT-X-SERVER-CONTROL': pl.holdBack = +attrs(v)['PART-HOLD-BACK'] || 0; break;
      case '#EXT-X-MAP': map = attrs(v).URI; break;
      case '#EXT-X-PROGRAM-DATE-TIME': pdt = Date.parse(v); break;
      case '#EXT-X-DISCONTINUITY': disc = true; break;
      case '#EXT-X-GAP': gap = true; break;
      case '#EXTINF': dur = parseFloat(v); break;
      case '#EXT-X-SKIP': msn += parseInt(attrs(v)['SKIPPED-SEGMENTS'], 10) || 0; break;
      case '#EXT-X-PART': {
        const a = attrs(v);
        parts.push({ uri: a.URI, dur: +a.DURATION, independent: a.INDEPENDENT === 'YES', gap: a.GAP === 'YES' });
        break;
      }
      case '#EXT-X-PRELOAD-HINT': {
        const a = attrs(v);
        if (a.TYPE === 'PART') pl.hint = Object.assign({ uri: a.URI }, partNumbers(a.URI));
        break;
      }
      case '#EXT-X-ENDLIST': pl.ended = true; break;
      // A live break the gateway put in place of the channel's media (docs/inserts.md).
      case '#EXT-X-DATERANGE': {
        const a = attrs(v), start = Date.parse(a['START-DATE']);
        if (a.CLASS === 'net.grandstand.break' && !isNaN(start))
          pl.breaks.push({ id: a.ID, start, end: start + 1000 * (+a.DURATION || 0), playOnce: a['X-PLAY-ONCE'] === 'YES' });
        break;
      }
    }
  }
  if (parts.length) pl.segments.push({ msn, uri: null, dur: parts.reduce((t, p) => t + p.dur, 0), pdt, map, disc, gap, parts });
  // A segment without its own PDT follows the one before it.
  for (let i = 1; i < pl.segments.length; i++) {
    const s = pl.segments[i], prev = pl.segments[i - 1];
    if (s.pdt == null && prev.pdt != null) s.pdt = prev.pdt + prev.dur * 1000;
  }
  return pl;
}
function liveEdgePdt(pl) {
  const last = pl.segments[pl.segments.length - 1];
  return last && last.pdt != null ? last.pdt + last.dur * 1000 : null;
}

// ---- ISO BMFF: the boxes the player reads (init: track ids, timescales, handlers, codecs; fragments: tfdt).
function boxes(bytes, start, end, visit) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = start;
  while (at + 8 <= end) {
    let size = view.getUint32(at);
    const type = String.fromCharCode(bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]);
    let header = 8;
    if (size === 1) { size = Number(view.getBigUint64(at + 8)); header = 16; }
    if (size === 0) size = end - at;
    if (size < header || at + size > end) break;
    if (visit(type, at + header, at + size, view) === false) return;
    at += size;
  }
}
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'moof', 'traf', 'mvex', 'edts']);
function readInit(bytes) {
  const tracks = [];
  let track = null, codecs = [];
  const walk = (s, e) => boxes(bytes, s, e, (type, b, end, view) => {
    if (type === 'trak') { track = { id: 0, timescale: 90000, handler: '' }; tracks.push(track); }
    if (type === 'stsd') { walk(b + 8, end); return; }
    if (type === 'avc1' || type === 'avc3' || type === 'hvc1' || type === 'hev1' || type === 'mp4a') { walk(b + (type === 'mp4a' ? 28 : 78), end); return; }
    if (CONTAINERS.has(type)) { walk(b, end); return; }
    if (!track) return;
    const v1 = bytes[b] === 1;
    if (type === 'tkhd') track.id = view.getUint32(b + (v1 ? 20 : 12));
    if (type === 'mdhd') track.timescale = view.getUint32(b + (v1 ? 20 : 12));
    if (type === 'hdlr') track.handler = String.fromCharCode(...bytes.subarray(b + 8, b + 12));
    if (type === 'avcC') codecs.push('avc1.' + [bytes[b + 1], bytes[b + 2], bytes[b + 3]].map(x => x.toString(16).padStart(2, '0')).join(''));
    if (type === 'hvcC') codecs.push('hvc1.1.6.L' + bytes[b + 12] + '.B0');
    if (type === 'esds') codecs.push('mp4a.40.2');
  });
  walk(0, bytes.length);
  const video = tracks.find(t => t.handler === 'vide') || tracks[0] || { id: 1, timescale: 90000 };
  return { video, codecs: codecs.join(',') };
}
// The video track's base media decode time (seconds) of the first fragment in `bytes`.
function firstDecodeTime(bytes, video) {
  let found = null;
  const walk = (s, e) => boxes(bytes, s, e, (type, b, end, view) => {
    if (found != null) return false;
    if (type === 'moof') { walk(b, end); return; }
    if (type === 'traf') {
      let id = null, t = null;
      boxes(bytes, b, end, (ty, bb) => {
        if (ty === 'tfhd') id = view.getUint32(bb + 4);
        if (ty === 'tfdt') t = bytes[bb] === 1 ? Number(view.getBigUint64(bb + 4)) : view.getUint32(bb + 4);
      });
      if (t != null && (id === video.id || id == null)) found = t / video.timescale;
    }
  });
  walk(0, bytes.length);
  return found;
}

// ---- The player: one MediaSource and one SourceBuffer per channel watched.
class Player {
  constructor(box, channel, video, ui) {
    this.box = box; this.channel = channel; this.video = video; this.ui = ui;
    this.base = channel.playlist.replace(/[^/]*$/, '');
    this.abort = new AbortController();
    this.stopped = false;
    this.live = true;            // following the live edge (false after a rewind)
    this.next = null;            // {msn, part}: what the loader fetches next
    this.appendedMap = null;     // the init segment the SourceBuffer has
    this.inits = new Map();      // map URI → bytes
    this.timeline = new Map();   // msn → {start (media s), pdt (ms), dur (s)}
    this.breaks = new Map();     // live break id → {start, end (pdt ms), playOnce, shown, segments}
    this.replaced = new Set();   // msn of break segments whose channel media is in the buffer
    this.queue = Promise.resolve();
    this.stalls = 0; this.waitingSince = 0; this.nudged = 0; this.log = window.grandstand.log; this.errors = 0; this.started = false;
    this.state('loading');
  }
  // A short history of what the player did (jumps, stalls, nudges, re-syncs) for tests and debugging.
  note(kind) {
    const v = this.video, b = v.buffered, ranges = [];
    for (let i = Math.max(0, b.length - 2); i < b.length; i++) ranges.push([+b.start(i).toFixed(3), +b.end(i).toFixed(3)]);
    this.log.push({ at: Math.round(performance.now()), channel: this.channel.id, kind, t: +v.currentTime.toFixed(3), ranges, latency: this.latencyMs() });
    if (this.log.length > 100) this.log.shift();
  }
  state(s) { if (this.box.dataset.player !== s) this.box.dataset.player = s; this.ui.state(s); }
  targetMs() {
    const asked = +params.get('latency');
    if (asked > 0) return asked;
    const pl = this.pl;
    // The server's PART-HOLD-BACK (3 part targets), at least 0.85 s, plus 250 ms per stall so far
    // (at most 1 s more): a network that delivers parts late gets a deeper buffer. The floor: a
    // frame reaches the screen no sooner than its part closes, is fetched, appended and decoded
    // (≈ 0.65 s with 0.2 s parts on loopback, measured), and the rate control aims 150 ms under
    // the target, so a 0.6 s target had it chase an unreachable latency at 1.05–1.1× (dropped frames).
    const base = Math.max(850, Math.round(1000 * (pl && pl.holdBack ? pl.holdBack : 3 * (pl ? pl.partTarget : 0.2))));
    return base + Math.min(1000, 250 * this.stalls);
  }

  // What the rate control steers to: a little under the target (the most latency may grow to).
  aimMs() { const t = this.targetMs(); return Math.max(t - 150, Math.round(t * 0.85)); }

  async start() {
    const v = this.video;
    if (!MS) {
      if (!nativeHLS) { this.state('unsupported'); return; }
      v.src = this.channel.playlist;            // the browser's own HLS (latency from getStartDate)
      v.addEventListener('playing', () => this.state('playing'));
      v.addEventListener('waiting', () => this.state('stalled'));
      v.addEventListener('error', () => this.state('error'));
      v.play().catch(() => {});
      this.timer = setInterval(() => this.tickNative(), 250);
      return;
    }
    try {
      this.pl = await this.fetchPlaylist();
      let codecs = this.channel.codecs;
      const first = this.livePoint();
      if (!first) throw new Error('no media yet');
      const init = await this.init(first.seg.map);
      if (!codecs) codecs = readInit(init).codecs;
      const type = 'video/mp4; codecs="' + codecs + '"';
      if (!MS.isTypeSupported(type)) { this.state('unsupported'); this.ui.note('This browser cannot play ' + codecs + '.'); return; }
      this.ms = new MS();
      if (window.ManagedMediaSource && MS === window.ManagedMediaSource) { v.disableRemotePlayback = true; v.srcObject = this.ms; }
      else v.src = URL.createObjectURL(this.ms);
      await new Promise(r => this.ms.addEventListener('sourceopen', r, { once: true }));
      if (this.stopped) return;
      this.sb = this.ms.addSourceBuffer(type);
      this.sb.mode = 'segments';
      this.next = { msn: first.seg.msn, part: first.part };
      this.watch();
      this.loop();
    } catch (e) {
      if (!this.stopped) { this.state('error'); this.ui.note('Cannot play: ' + e.message); }
    }
  }

  // Where to start: the newest independent part (or segment) of the live playlist.
  livePoint() {
    const segs = this.pl.segments;
    for (let i = segs.length - 1; i >= 0; i--) {
      const s = segs[i];
      if (s.gap) continue;
      for (let p = s.parts.length - 1; p >= 0; p--) if (s.parts[p].independent && !s.parts[p].gap) return { seg: s, part: p };
      if (s.uri && !s.parts.length) return { seg: s, part: 0 };
    }
    return null;
  }

  async fetchPlaylist(msn, part) {
    const q = msn == null ? '' : '?_HLS_msn=' + msn + '&_HLS_part=' + part;
    const r = await fetch(this.channel.playlist + q, { signal: this.abort.signal, cache: 'no-store' });
    if (r.status === 400 && q) return this.fetchPlaylist();
    if (!r.ok) throw new Error('playlist ' + r.status);
    return this.learn(parsePlaylist(await r.text()));
  }
  // Keeps what a playlist says about live breaks: their dates, and the channel's own segment
  // (and header) each break segment stands in for, for a rewind past a play-once break.
  learn(pl) {
    for (const b of pl.breaks) if (!this.breaks.has(b.id)) this.breaks.set(b.id, Object.assign({ shown: false, segments: new Map() }, b));
    for (const s of pl.segments) {
      if (s.map && !s.map.startsWith('break/')) this.ownMap = s.map;
      const m = /^break\/([^/]+)\/(seg\d+\.m4s)$/.exec(s.uri || '');
      if (m && this.breaks.has(m[1])) this.breaks.get(m[1]).segments.set(s.msn, m[2]);
    }
    return pl;
  }
  // Where a segment's media comes from: the channel's own in place of a play-once break this
  // player has shown (docs/inserts.md "Sessions"), else as listed.
  source(s) {
    const m = /^break\/([^/]+)\//.exec(s.uri || ''), b = m && this.breaks.get(m[1]);
    if (b && b.playOnce && b.shown && this.ownMap && b.segments.has(s.msn)) return { uri: b.segments.get(s.msn), map: this.ownMap, own: true };
    return { uri: s.uri, map: s.map, own: false };
  }
  async bytes(uri) {
    const r = await fetch(this.base + uri, { signal: this.abort.signal });
    if (!r.ok) { const e = new Error(uri + ' ' + r.status); e.status = r.status; throw e; }
    return new Uint8Array(await r.arrayBuffer());
  }
  async init(map) {
    if (!this.inits.has(map)) this.inits.set(map, await this.bytes(map));
    return this.inits.get(map);
  }

  // Appends run one at a time; a media chunk brings its init segment when the map changed.
  append(map, data, msn, offsetInSeg, seg) {
    const job = this.queue.then(async () => {
      if (this.stopped) return;
      // A new header (a live break's, or the channel's back after it): its tracks time what follows.
      if (map !== this.appendedMap) { const b = await this.init(map); this.track = readInit(b).video; await this.sbAppend(b); this.appendedMap = map; }
      const t = firstDecodeTime(data, this.track || { id: 1, timescale: 90000 });
      if (t != null && seg && seg.pdt != null && !this.timeline.has(msn)) this.timeline.set(msn, { start: t - offsetInSeg, pdt: seg.pdt, dur: seg.dur });
      else if (seg && this.timeline.has(msn)) this.timeline.get(msn).dur = Math.max(this.timeline.get(msn).dur, seg.dur);
      await this.sbAppend(data);
    });
    this.queue = job.catch(() => {});
    return job;
  }
  async sbAppend(data) {
    const sb = this.sb;
    if (this.ms.readyState !== 'open') throw new Error('media source closed');
    for (let attempt = 0; ; attempt++) {
      try {
        await new Promise((resolve, reject) => {
          const done = () => { sb.removeEventListener('error', fail); resolve(); };
          const fail = () => { sb.removeEventListener('updateend', done); reject(new Error('append failed')); };
          sb.addEventListener('updateend', done, { once: true });
          sb.addEventListener('error', fail, { once: true });
          sb.appendBuffer(data);
        });
        return;
      } catch (e) {
        if (e.name !== 'QuotaExceededError' || attempt > 2) throw e;
        await this.evict(10);
      }
    }
  }
  async evict(keepBehind) {
    const sb = this.sb, t = this.video.currentTime;
    if (!sb || !sb.buffered.length || sb.buffered.start(0) >= t - keepBehind) return;
    await new Promise(r => { sb.addEventListener('updateend', r, { once: true }); sb.remove(0, t - keepBehind); });
  }

  // The loader: parts at the live edge (the hinted part requested at once, with a blocking
  // playlist reload for it), whole segments when behind; EXT-X-GAP segments and parts skipped.
  async loop() {
    let failures = 0;
    while (!this.stopped) {
      try {
        await this.step();
        failures = 0;
        if (this.box.dataset.player === 'error') this.state(this.started ? 'playing' : 'loading');
      } catch (e) {
        if (this.stopped) return;
        failures++;
        if (e.status === 404 || failures > 3) { try { this.pl = await this.fetchPlaylist(); this.resync(); } catch (_) {} }
        if (failures > 8) this.state('error');
        await sleep(Math.min(2000, 100 * failures));
      }
    }
  }
  resync() {
    const p = this.livePoint();
    if (p) this.next = { msn: p.seg.msn, part: p.part };
  }
  async step() {
    const pl = this.pl, next = this.next;
    const seg = pl.segments.find(s => s.msn === next.msn);
    const last = pl.segments[pl.segments.length - 1];
    if (!seg) {
      if (next.msn < pl.first) { this.resync(); return; }                   // fell out of the window
      if (pl.ended) { await sleep(1000); this.pl = await this.fetchPlaylist(); return; }
      if (last && next.msn > last.msn + 1) { this.pl = await this.fetchPlaylist(); this.resync(); return; }
      this.pl = await this.fetchPlaylist(next.msn, next.part);               // blocking reload
      return;
    }
    if (seg.gap) { this.next = { msn: seg.msn + 1, part: 0 }; return; }     // a hole: jumped over in playback
    const behind = last.msn - seg.msn;
    if (next.part === 0 && seg.uri && (seg.parts.length === 0 || behind >= 2)) {
      const data = await this.bytes(seg.uri);
      await this.append(seg.map, data, seg.msn, 0, seg);
      this.next = { msn: seg.msn + 1, part: 0 };
      return;
    }
    if (next.part < seg.parts.length) {
      const part = seg.parts[next.part];
      if (!part.gap) {
        const offset = seg.parts.slice(0, next.part).reduce((t, p) => t + p.dur, 0);
        const data = await this.bytes(part.uri);
        await this.append(seg.map, data, seg.msn, offset, seg);
      }
      this.next = seg.uri && next.part + 1 >= seg.parts.length ? { msn: seg.msn + 1, part: 0 } : { msn: seg.msn, part: next.part + 1 };
      return;
    }
    if (seg.uri) { this.next = { msn: seg.msn + 1, part: 0 }; return; }
    const hint = pl.hint;
    if (hint && hint.msn === seg.msn + 1 && hint.part === 0 && next.part >= seg.parts.length) {
      this.pl = await this.fetchPlaylist(next.msn + 1, 0);
      return;
    }
    if (hint && hint.msn === next.msn && hint.part === next.part) {
      // The hinted part now (the server holds it until published) and the playlist that lists it.
      const offset = seg.parts.reduce((t, p) => t + p.dur, 0);
      const partJob = this.bytes(hint.uri).then(data => this.append(seg.map, data, seg.msn, offset, Object.assign({}, seg, { dur: offset + pl.partTarget })));
      const [, list] = await Promise.all([partJob, this.fetchPlaylist(next.msn, next.part)]);
      this.pl = list;
      const now = list.segments.find(s => s.msn === next.msn);
      this.next = now && now.uri && next.part + 1 >= now.parts.length ? { msn: next.msn + 1, part: 0 } : { msn: next.msn, part: next.part + 1 };
      return;
    }
    this.pl = await this.fetchPlaylist(next.msn, next.part);
  }

  // ---- Timeline: media time ↔ PROGRAM-DATE-TIME, per segment (start = its first tfdt).
  pdtAt(t) {
    let best = null;
    for (const s of this.timeline.values()) if (s.start <= t + 1e-3 && (!best || s.start > best.start)) best = s;
    return best ? best.pdt + (t - best.start) * 1000 : null;
  }
  timeAt(pdt) {
    let best = null;
    for (const s of this.timeline.values()) if (s.pdt <= pdt + 1 && (!best || s.pdt > best.pdt)) best = s;
    return best ? best.start + (pdt - best.pdt) / 1000 : null;
  }
  latencyMs() {
    const pdt = this.pdtAt(this.video.currentTime);
    return pdt == null ? null : Math.round(clock.now() - pdt);
  }
  bufferedRange(t) {
    const b = this.sb ? this.sb.buffered : this.video.buffered;
    for (let i = 0; i < b.length; i++) if (t >= b.start(i) - 0.05 && t <= b.end(i)) return { start: b.start(i), end: b.end(i), index: i };
    return null;
  }
  bufferedEnd() { const b = this.video.buffered; return b.length ? b.end(b.length - 1) : 0; }

  // ---- Playback control: start, catch-up by rate (1.0–1.1), holes, stalls, DVR.
  watch() {
    const v = this.video;
    v.addEventListener('playing', () => {
      this.waitingSince = 0;
      if (!this.started) { this.started = true; this.ui.firstFrame(); }
      this.state('playing');
    });
    v.addEventListener('waiting', () => {
      if (!this.started || v.seeking) return;
      this.waitingSince = performance.now();
    });
    v.addEventListener('error', () => { if (!this.stopped) this.state('error'); });
    this.timer = setInterval(() => this.tick(), 250);
    this.evictTimer = setInterval(() => this.queue = this.queue.then(() => this.evict(60)).catch(() => {}), 10000);
  }
  tick() {
    const v = this.video;
    if (this.stopped || !this.sb) return;
    const target = this.targetMs();
    // First data: seek to the target latency (inside the first GOP, the decoder starts at its keyframe).
    if (!this.started && v.buffered.length && v.readyState < 3 && !v.seeking && !this.primed) {
      const t = this.timeAt(clock.now() - target);
      const start = v.buffered.start(0), end = this.bufferedEnd();
      v.currentTime = Math.min(Math.max(t == null ? start : t, start), Math.max(start, end - 0.05));
      this.primed = true;
      v.play().catch(() => { v.muted = true; v.play().catch(() => {}); });
    }
    const t = v.currentTime;
    const range = this.bufferedRange(t);
    // A break is shown once the playhead is inside it.
    const shownAt = this.breaks.size ? this.pdtAt(t) : null;
    if (shownAt != null) for (const b of this.breaks.values()) if (!b.shown && shownAt >= b.start && shownAt < b.end) { b.shown = true; this.note('break ' + b.id); }
    // Jump over holes (EXT-X-GAP, lost parts, the small hole at a discontinuity): seek to the next
    // buffered range just as the playhead reaches the hole (a timer set when it is less than a
    // tick away, so no more media is skipped than the hole). Letting Chromium play across a
    // discontinuity's hole on its own stalls it about 3 s later; a seek restarts both renderers.
    if (!range || range.end - t < 0.3) {
      const b = v.buffered;
      const from = range ? range.end : t;
      for (let i = 0; i < b.length; i++) {
        if (b.start(i) > from - 0.001 && b.start(i) > t + 0.01 && b.start(i) - from < 10) {
          const to = b.start(i) + 0.01, wait = range ? Math.max(0, (range.end - t - 0.04) / (v.playbackRate || 1)) * 1000 : 0;
          if (!this.jumpTimer) this.jumpTimer = setTimeout(() => {
            this.jumpTimer = null;
            if (!this.stopped && v.currentTime < to - 0.01) { this.note('jump'); v.currentTime = to; }
          }, wait);
          break;
        }
      }
    }
    // A stall: waiting for data for more than 250 ms while playing.
    if (this.waitingSince && performance.now() - this.waitingSince > 250 && v.readyState < 3 && !v.seeking) {
      if (this.box.dataset.player !== 'stalled') { this.stalls++; this.box.dataset.stalls = this.stalls; this.note('stall'); }
      this.state('stalled');
      // Data is there but the decoder sits still (seen in Chromium after an underrun at the live
      // edge): a small seek restarts it.
      if (!v.paused && this.bufferedEnd() - v.currentTime > 0.3 && performance.now() - this.nudged > 1000) {
        this.nudged = performance.now();
        this.note('nudge');
        v.currentTime = v.currentTime + 0.02;
      }
      if (this.live && performance.now() - this.waitingSince > 3000 && this.fetchBehind()) { this.resync(); this.waitingSince = performance.now(); }
    }
    const latency = this.latencyMs();
    if (latency != null) this.box.dataset.latencyMs = latency;
    this.box.dataset.targetMs = target;
    if (this.live && this.started && latency != null && !v.seeking) {
      const ahead = this.bufferedEnd() - t;
      if (latency > target + 2500 && ahead > 0.5) {
        // Re-sync after a stall: seek to the target latency within what is buffered.
        this.note('resync');
        const to = this.timeAt(clock.now() - target);
        if (to != null) v.currentTime = Math.min(to, this.bufferedEnd() - 0.1);
        v.playbackRate = 1;
      } else {
        // Aim 150 ms under the target (the target is the most the player lets latency grow to).
        // Three steps (1, 1.05, 1.1) with hysteresis: few rate changes (each one costs the audio
        // renderer work), none while the buffer ahead is short.
        const excess = latency - this.aimMs();
        let rate = v.playbackRate;
        if (excess <= 0 || ahead < 0.3) rate = 1;
        else if (excess > 400) rate = 1.1;
        else if (excess > 100 && rate === 1) rate = 1.05;
        if (v.playbackRate !== rate) { v.playbackRate = rate; this.note('rate ' + rate); }
      }
    } else if (v.playbackRate !== 1) v.playbackRate = 1;
    if (this.live && this.started && this.fetchBehind()) this.resync();
    this.ui.update(this);
  }
  // The loader is far behind the live edge (it will not catch up by reading forward).
  fetchBehind() {
    const last = this.pl && this.pl.segments[this.pl.segments.length - 1];
    return last && this.next && last.msn - this.next.msn > 3;
  }

  windowPdt() {
    const pl = this.pl;
    const first = pl && pl.segments.find(s => s.pdt != null);
    return first ? { start: first.pdt, end: liveEdgePdt(pl) } : null;
  }
  // Plays from `pdt`: seeks at once when buffered, else loads the whole segments from there up
  // to what is buffered first (appending earlier media is allowed: timestamps are absolute).
  async seekToPdt(pdt) {
    const v = this.video, win = this.windowPdt();
    if (!win) return;
    pdt = Math.max(win.start, Math.min(pdt, win.end));
    this.live = false;
    v.playbackRate = 1;
    let t = this.timeAt(pdt);
    // A play-once break already shown, from here on: the channel's own media replaces it in the
    // buffer (the break was re-timed onto the same decode times, so appending over it swaps it).
    const segs = this.pl.segments.filter(s => s.uri && !s.gap && s.pdt != null && s.pdt + s.dur * 1000 > pdt);
    for (const s of segs) {
      const from = this.source(s);
      if (!from.own || this.replaced.has(s.msn)) continue;
      this.note('own ' + s.msn);
      await this.append(from.map, await this.bytes(from.uri), s.msn, 0, s);
      this.replaced.add(s.msn);
    }
    if (t == null || !this.bufferedRange(t) || this.pdtAt(t) == null || Math.abs(this.pdtAt(t) - pdt) > 500) {
      const firstBuffered = v.buffered.length ? v.buffered.start(0) : Infinity;
      for (const s of segs) {
        const known = this.timeline.get(s.msn);
        if (known && this.bufferedRange(known.start + 0.1) && known.start >= firstBuffered - 0.1) break;
        const from = this.source(s);
        await this.append(from.map, await this.bytes(from.uri), s.msn, 0, s);
        if (from.own) this.replaced.add(s.msn);
      }
      t = this.timeAt(pdt);
    }
    if (t != null && !this.stopped) { v.currentTime = t; v.play().catch(() => {}); }
  }
  back(ms) {
    const now = this.pdtAt(this.video.currentTime);
    if (now != null) return this.seekToPdt(now - ms);
  }
  goLive() {
    this.live = true;
    const v = this.video;
    if (this.fetchBehind()) this.resync();
    const t = this.timeAt(clock.now() - this.aimMs());
    if (t != null) v.currentTime = Math.min(t, this.bufferedEnd() - 0.1);
    v.play().catch(() => {});
  }

  tickNative() {
    const v = this.video;
    const start = v.getStartDate ? v.getStartDate().getTime() : NaN;
    if (!isNaN(start)) this.box.dataset.latencyMs = Math.round(clock.now() - (start + v.currentTime * 1000));
    this.ui.update(this);
  }
  stop() {
    this.stopped = true;
    this.abort.abort();
    clearInterval(this.timer); clearInterval(this.evictTimer); clearTimeout(this.jumpTimer);
    const v = this.video;
    v.pause();
    v.removeAttribute('src'); v.srcObject = null; v.load();
    delete this.box.dataset.player; delete this.box.dataset.latencyMs; delete this.box.dataset.stalls; delete this.box.dataset.targetMs;
  }
}

// What app.js (the page) uses.
window.grandstandPlayer = { MS, nativeHLS, params, still, el, seconds, clock, Player };
})();
