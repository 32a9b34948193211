/// The fan page `/`: a phone-first page listing the channels from `/channels.json` with their
/// thumbnails and a `<video>` player per channel. Native HLS plays in Safari and iOS/Android
/// browsers that have it; elsewhere the page says so and offers the playlist URL. No script or
/// style comes from outside the gateway.
enum FanPage {
    static let html = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Grandstand — live channels</title>
    <style>
    body { font-family: system-ui, sans-serif; margin: 0; background: #111; color: #eee; }
    header { padding: 12px 16px; background: #1b5e20; font-size: 1.2em; }
    main { padding: 8px; display: grid; gap: 12px; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); }
    .channel { background: #222; border-radius: 8px; overflow: hidden; }
    .channel h2 { font-size: 1em; margin: 8px 12px; }
    .channel img, .channel video { width: 100%; display: block; background: #000; aspect-ratio: 16 / 9; }
    .note { font-size: .85em; color: #aaa; margin: 6px 12px 10px; }
    .note a { color: #8bc34a; }
    </style>
    </head>
    <body>
    <header>Grandstand — live channels</header>
    <p id="support" class="note"></p>
    <main id="channels"><p class="note">Loading channels…</p></main>
    <script>
    const native = document.createElement('video').canPlayType('application/vnd.apple.mpegurl') !== '';
    document.getElementById('support').textContent = native
      ? 'Tap a channel to play it live.'
      : 'This browser has no built-in HLS player: open a playlist link in a player app (VLC, Safari, Android Chrome).';
    function render(list) {
      const main = document.getElementById('channels');
      main.textContent = '';
      const videos = list.filter(c => c.kind === 'video');
      if (videos.length === 0) { main.innerHTML = '<p class="note">No live channel yet.</p>'; return; }
      for (const c of videos) {
        const box = document.createElement('section');
        box.className = 'channel';
        box.id = 'channel-' + c.id;
        const title = document.createElement('h2');
        title.textContent = c.name + (c.live ? '' : ' (starting)');
        box.appendChild(title);
        const video = document.createElement('video');
        video.controls = true; video.playsInline = true; video.muted = true;
        if (c.thumbnail) video.poster = c.thumbnail + '?t=' + Date.now();
        if (native) video.src = c.playlist;
    // The player's progress as a data attribute: fans never see it, tests (headless Chromium) read it.
    box.dataset.player = native ? 'loading' : 'unsupported';
    video.addEventListener('loadedmetadata', () => { box.dataset.player = 'loaded ' + video.videoWidth + 'x' + video.videoHeight; });
    video.addEventListener('error', () => { box.dataset.player = 'error'; });
        box.appendChild(video);
        const note = document.createElement('p');
        note.className = 'note';
        const link = document.createElement('a');
        link.href = c.playlist; link.textContent = 'live playlist';
        const rewind = document.createElement('a');
        rewind.href = c.rewind; rewind.textContent = '20 s back';
        note.append(link, ' · ', rewind);
        box.appendChild(note);
        main.appendChild(box);
      }
    }
    fetch('/channels.json').then(r => r.json()).then(render)
      .catch(e => { document.getElementById('channels').textContent = 'Cannot load channels: ' + e; });
    </script>
    </body>
    </html>

    """
}
