import GrandstandCore
import Testing

/// The one extension → Content-Type table (file channels, cached items, `send --files`).
struct MediaTypeTests {
    @Test(arguments: [
        ("index.m3u8", "application/vnd.apple.mpegurl"), ("seg0.ts", "video/mp2t"), ("part.m4s", "video/mp4"),
        ("clip.MP4", "video/mp4"), ("a/b/feed.json", "application/json"), ("notes.txt", "text/plain; charset=utf-8"),
        ("map.xml", "application/xml"), ("thumb.jpeg", "image/jpeg"), ("logo.png", "image/png"), ("page.htm", "text/html; charset=utf-8"),
        ("README", "application/octet-stream"), ("dir.v2/file", "application/octet-stream"), ("archive.tar.gz", "application/octet-stream"),
    ])
    func typeFollowsTheLastNamesExtension(path: String, type: String) {
        #expect(MediaType.forPath(path) == type)
    }
}
