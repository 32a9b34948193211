// Grandstand fan app, part 2: the page: channel boxes and controls, the scores ticker,
// downloads, the catalog and recordings, start-up. Uses player.js (loaded first). No
// third-party code, no external asset. Design, states and the latency computation: docs/fan-app.md.
'use strict';
(() => {
const { MS, nativeHLS, params, still, el, seconds, clock, Player } = window.grandstandPlayer;

// ---- Channel boxes: a card per channel; the watched one holds the video and its controls.
let current = null;
const boxes_ = new Map();
function channelBox(c) {
  const box = el('section', { class: 'channel', id: 'channel-' + c.id, 'aria-labelledby': 'title-' + c.id });
  const badge = el('span', { class: 'badge', text: c.live ? 'LIVE' : 'starting' });
  const stage = el('div', { class: 'stage' });
  const poster = el('img', { alt: '', src: c.thumbnail ? c.thumbnail + '?t=' + Date.now() : null });
  const watch = el('button', { class: 'watch', type: 'button', text: '▶ Watch ' + c.name, onclick: () => play(c.id) });
  stage.append(poster, watch);
  const links = el('p', { class: 'links note' },
    el('a', { href: c.playlist, text: 'LL-HLS playlist' }), ' · ',
    el('a', { href: c.playlistTS, text: 'TS playlist' }),
    c.dash ? ' · ' : null, c.dash ? el('a', { href: c.dash, text: 'DASH' }) : null, ' · ',
    el('a', { href: c.rewind, text: '20 s back (playlist)' }));
  box.append(el('header', null, el('h3', { id: 'title-' + c.id, text: c.name }), badge), stage, links);
  boxes_.set(c.id, { box, stage, poster, watch, badge, channel: c });
  return box;
}

function controls(c, player) {
  const pause = el('button', { type: 'button', text: 'Pause', onclick: () => { const v = player.video; if (v.paused) { v.play(); } else { v.pause(); player.live = false; } } });
  const back = el('button', { type: 'button', 'aria-label': 'Back 10 seconds', text: '↺ Back 10 s', onclick: () => player.back(10000) });
  const live = el('button', { type: 'button', class: 'primary', text: 'Go live', onclick: () => player.goLive() });
  const mute = el('button', { type: 'button', text: 'Unmute', 'aria-pressed': 'false', onclick: () => { player.video.muted = !player.video.muted; } });
  const status = el('span', { class: 'badge', role: 'status', 'aria-live': 'off' });
  const scrub = el('input', { type: 'range', id: 'scrub-' + c.id, min: 0, max: 1000, step: 1000, value: 0, 'aria-describedby': 'lat-' + c.id });
  let dragging = false;
  scrub.addEventListener('pointerdown', () => { dragging = true; });
  scrub.addEventListener('pointerup', () => { dragging = false; });
  scrub.addEventListener('change', () => {
    dragging = false;
    const win = player.windowPdt();
    if (win && +scrub.value >= win.end - player.targetMs() - 1000) player.goLive(); else player.seekToPdt(+scrub.value);
  });
  const label = el('label', { for: 'scrub-' + c.id, text: 'Position' });
  const lat = el('output', { id: 'lat-' + c.id, class: 'note', for: 'scrub-' + c.id });
  const bar = el('div', { class: 'controls' }, pause, back, live, mute, status);
  const scrubRow = el('div', { class: 'scrub' }, label, scrub, lat);
  const note = el('p', { class: 'note', role: 'status' });
  return {
    nodes: [bar, scrubRow, note],
    note: text => { note.textContent = text; },
    state: s => { status.textContent = s === 'playing' ? (player.live ? 'LIVE' : 'REPLAY') : s; status.classList.toggle('live', s === 'playing' && player.live); },
    firstFrame: () => {},
    update: p => {
      const v = p.video;
      pause.textContent = v.paused ? 'Play' : 'Pause';
      mute.textContent = v.muted ? 'Unmute' : 'Mute';
      mute.setAttribute('aria-pressed', String(!v.muted));
      const latency = +p.box.dataset.latencyMs;
      if (!isNaN(latency)) lat.textContent = seconds(latency) + ' behind';
      if (p.box.dataset.player === 'playing') status.textContent = p.live ? 'LIVE' : 'REPLAY';
      const win = p.windowPdt && p.windowPdt();
      if (win && !dragging && document.activeElement !== scrub) {
        scrub.min = win.start; scrub.max = win.end;
        const at = p.pdtAt && p.pdtAt(v.currentTime);
        if (at != null) scrub.value = at;
        scrub.setAttribute('aria-valuetext', isNaN(latency) ? '' : (p.live ? 'live, ' : '') + seconds(latency) + ' behind live');
      }
    },
  };
}

function play(id) {
  const entry = boxes_.get(id);
  if (!entry) return;
  const clicked = performance.now();
  if (current) {
    const old = boxes_.get(current.channel.id);
    current.player.stop();
    current.video.remove();
    for (const n of current.ui.nodes) n.remove();
    old.box.classList.remove('active');
    old.stage.append(old.poster, old.watch);
  }
  const video = el('video', { playsinline: '', muted: '', autoplay: '', 'aria-label': entry.channel.name + ' video' });
  video.muted = true; video.playsInline = true;
  entry.poster.remove(); entry.watch.remove();
  entry.stage.append(video);
  entry.box.classList.add('active');
  const ui = {};
  const player = new Player(entry.box, entry.channel, video, {
    state: s => ui.c && ui.c.state(s), note: t => ui.c && ui.c.note(t),
    firstFrame: () => { entry.box.dataset.switchMs = Math.round(performance.now() - clicked); },
    update: p => ui.c && ui.c.update(p),
  });
  ui.c = controls(entry.channel, player);
  entry.stage.after(...ui.c.nodes);
  player.state('loading');
  current = { channel: entry.channel, player, video, ui: ui.c };
  window.grandstand.player = player;
  player.start();
}

const size = n => n < 1e5 ? Math.max(1, Math.round(n / 1e3)) + ' kB' : (n / 1e6).toFixed(1) + ' MB';

// ---- Data channels (ticker) and file channels (downloads), over Server-Sent Events.
function ticker(c) {
  const bar = document.getElementById('ticker');
  const show = m => {
    if (!m || m.text == null) return;
    bar.hidden = false;
    let text = m.text;
    try {   // a JSON message: its fields as "key value · …" (sender clocks left out)
      const o = JSON.parse(text);
      if (o && typeof o === 'object') text = Object.entries(o).filter(([k]) => !/nanoseconds|^channel$/i.test(k)).map(([k, v]) => k + ' ' + v).join(' · ');
    } catch (_) { /* plain text */ }
    bar.replaceChildren(el('b', { text: c.name }), text);
  };
  fetch(c.messages).then(r => r.json()).then(list => show(list[list.length - 1])).catch(() => {});
  if (still) return;
  const es = new EventSource(c.events);
  es.onmessage = e => { try { show(JSON.parse(e.data)); } catch (_) {} };
}
function downloads(c) {
  const list = document.getElementById('files'), seen = new Set();
  const add = m => {
    let f;
    try { f = JSON.parse(m.text); } catch (_) { return; }
    if (!f || f.event !== 'file' || f.status !== 'complete' || !f.url || seen.has(f.url)) return;
    seen.add(f.url);
    document.getElementById('downloads').hidden = false;
    list.prepend(el('li', null, el('a', { href: f.url, download: '', text: f.path }),
      el('div', { class: 'meta', text: c.name + (f.size != null ? ' · ' + size(f.size) : '') })));
  };
  fetch('/channels/' + c.id + '/messages.json').then(r => r.json()).then(l => l.forEach(add)).catch(() => {});
  if (still) return;
  const es = new EventSource(c.events);
  es.onmessage = e => { try { add(JSON.parse(e.data)); } catch (_) {} };
}

// ---- Catalog search (GET /catalog; docs/catalog.md).
function mediaLinks(item) {
  const out = [];
  for (const m of item.media || []) for (const [k, v] of Object.entries(m)) if (/URL$/i.test(k) && typeof v === 'string') out.push(el('a', { href: v, text: (m.type || 'media') + ' ' + k.replace(/URL$/i, '') }), ' ');
  return out;
}
// The gateway channel a live fixture plays on (its livePlaylist /channels/ID/live.m3u8).
const liveChannel = item => item.isLive && /^\/channels\/([^/]+)\/live\.m3u8$/.exec(item.livePlaylist || '')?.[1];
async function search(text) {
  const status = document.getElementById('catalog-status'), results = document.getElementById('results');
  const q = text.trim() ? '?q=name:like:' + encodeURIComponent(text.trim()) + '&limit=20' : '?sort=-startDate&limit=20';
  status.textContent = 'Searching…';
  try {
    const r = await fetch('/catalog' + q);
    if (r.status === 404) { status.textContent = 'No catalog on this gateway.'; results.replaceChildren(); return; }
    const page = await r.json();
    if (!r.ok) throw new Error(page.error || r.status);
    status.textContent = page.total + (page.total === 1 ? ' match' : ' matches');
    results.replaceChildren(...(page.fixtures || page.items).map(item => el('li', null,
      el('strong', { text: item.name || item.id }), item.isLive ? ' ' : null, item.isLive ? el('span', { class: 'badge live', text: 'LIVE' }) : null,
      liveChannel(item) ? el('button', { type: 'button', class: 'watch', text: 'Watch live', 'aria-label': 'Watch ' + (item.name || item.id) + ' live',
                                        onclick: () => { play(liveChannel(item)); window.scrollTo(0, 0); } }) : null,
      el('div', { class: 'meta', text: [item.competition?.name ?? item.competition, item.startDate && new Date(item.startDate).toLocaleString(), item.stadium?.name ?? item.stadium].filter(Boolean).join(' · ') }),
      el('div', null, ...mediaLinks(item)))));
  } catch (e) { status.textContent = 'Search failed: ' + e.message; }
}
document.getElementById('search').addEventListener('submit', e => { e.preventDefault(); search(document.getElementById('q').value); });
// ---- What the gateway keeps for fans: recordings (/records.json), timelines with their inserts
// (/timelines.json) and download-to-go items (/items.json); each list is absent when the gateway
// runs without that feature (404), and refreshed every 30 s.
const minutes = s => s >= 60 ? Math.round(s / 60) + ' min' : Math.round(s) + ' s';
async function listing(path, key) {
  try { const r = await fetch(path, { cache: 'no-store' }); return r.ok ? (await r.json())[key] || [] : null; }
  catch (_) { return null; }
}
async function library() {
  const [records, timelines, items] = await Promise.all([listing('/records.json', 'records'), listing('/timelines.json', 'timelines'), listing('/items.json', 'items')]);
  const links = [];
  for (const r of records || []) links.push(el('li', null, el('strong', { text: r.name }), ' ',
    el('a', { href: r.playlist, text: 'play' }), ' · ', el('a', { href: r.download, download: r.name + '.ts', text: 'download' }),
    el('div', { class: 'meta', text: ['recording of ' + r.channel, minutes(r.durationSeconds), size(r.bytes), r.state === 'failed' ? 'cut short: ' + r.reason : null].filter(Boolean).join(' · ') })));
  for (const t of timelines || []) links.push(el('li', null, el('strong', { text: t.id }), ' ',
    el('a', { href: t.playlist, text: 'play' + (t.inserts ? ' (with ' + t.inserts + ' insert' + (t.inserts === 1 ? '' : 's') + ')' : '') }),
    el('div', { class: 'meta', text: ['replay of ' + t.clips + ' clip' + (t.clips === 1 ? '' : 's'), t.mainDurationSeconds ? minutes(t.mainDurationSeconds) : null].filter(Boolean).join(' · ') })));
  document.getElementById('record-links').replaceChildren(...links);
  document.getElementById('recordings-status').textContent = links.length ? '' : records || timelines ? 'Nothing recorded yet.' : 'No recordings on this gateway.';
  const list = document.getElementById('items');
  // File channels' files are listed by their channel (downloads() above); the rest here, once
  // they have something to play (`play` is null while only their metadata is stored).
  list.replaceChildren(...(items || []).filter(i => !i.source.startsWith('file-channel') && i.play).map(i => el('li', null, el('a', { href: i.play, download: i.play.endsWith('.m3u8') ? null : '', text: i.title || i.id }),
    el('div', { class: 'meta', text: [i.category, i.files.length + ' file' + (i.files.length === 1 ? '' : 's'), size(i.bytes), i.state === 'downloaded' ? null : i.state].filter(Boolean).join(' · ') }))));
  if (list.children.length) document.getElementById('downloads').hidden = false;
  if (!still) setTimeout(library, 30000);
}

// ---- Start: the channel list, the first video channel playing (or the one in ?channel=).
window.grandstand = { play, clock, player: null, log: [] };
const support = document.getElementById('support');
support.textContent = MS ? 'Tap a channel to watch it live.' : nativeHLS ? 'Playing with the browser\'s own HLS player.'
  : 'This browser cannot play live video here: open a playlist link in a player app.';
async function load() {
  let list;
  try { list = await (await fetch('/channels.json', { cache: 'no-store' })).json(); }
  catch (e) { document.getElementById('channels').textContent = 'Cannot load channels: ' + e.message; return; }
  const main = document.getElementById('channels');
  const videos = list.filter(c => c.kind === 'video');
  main.replaceChildren(...videos.map(channelBox));
  if (!videos.length) main.append(el('p', { class: 'note', text: 'No live channel yet: this page refreshes the list.' }));
  list.filter(c => c.kind === 'data').forEach(ticker);
  list.filter(c => c.kind === 'file').forEach(downloads);
  search('');
  library();
  const wanted = params.get('channel');
  const first = videos.find(c => c.id === wanted) || videos.find(c => c.live) || videos[0];
  if (first && !still) play(first.id);
  if (!videos.length) setTimeout(load, 3000);
}
load();
})();
