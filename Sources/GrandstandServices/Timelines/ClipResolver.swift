import GrandstandCore

/// Turns a clip's source (a content-cache item and a playlist in it) into the segments a fan
/// fetches: stored files as `/items/ID/PATH`, the rest of a partially cached origin item as
/// origin URLs (the same rewriting as `/items/ID/…m3u8`, Cache/CacheFanRoutes.swift).
struct ClipResolver: Sendable {
    let cache: ContentCache

    /// The clip's segments, or the reason it cannot be scheduled (reported at `path`).
    func resolve(_ source: ClipSource, at path: JSONPath) -> Result<[VODSegment], ScheduleIssues> {
        guard let item = cache.item(source.item), item.state != .deleted else {
            return .failure(ScheduleIssues([JSONIssue(path: path.appending("item"), reason: "no cached item \(source.item)")]))
        }
        guard let root = source.playlist ?? Self.rootPlaylist(item) else {
            return .failure(ScheduleIssues([JSONIssue(path: path.appending("playlist"), reason: "item \(item.id) has no playlist; name one")]))
        }
        // Item paths are relative to the origin URL's directory; a file-channel item's to its
        // top, so a stand-in base at the top resolves them the same way.
        let master = item.originURL ?? "http://item.invalid/_"
        var playlistPath = root
        for _ in 0..<2 {
            guard let (_, file, local) = cache.file(item.id, path: playlistPath),
                  let bytes = CacheFanRoutes.readFile(local), bytes.count == file.size else {
                return .failure(ScheduleIssues([JSONIssue(path: path.appending("playlist"), reason: "\(playlistPath) is not stored in item \(item.id)")]))
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let playlist = VODPlaylist(text) else {
                return .failure(ScheduleIssues([JSONIssue(path: path.appending("playlist"), reason: "\(playlistPath) is not an HLS playlist")]))
            }
            let playlistURL = OriginURL.resolve(playlistPath, against: master)
            if playlist.kind == .master {
                // A master: its first variant (a rough cut is of one rendition).
                guard let variant = playlist.variants.first else { break }
                playlistPath = OriginURL.localPath(OriginURL.resolve(variant.uri, against: playlistURL), root: master)
                continue
            }
            guard let segments = VODPlaylist.segments(text), !segments.isEmpty else {
                return .failure(ScheduleIssues([JSONIssue(path: path.appending("playlist"), reason: "\(playlistPath) lists no segments")]))
            }
            var mapped: [VODSegment] = []
            for var segment in segments {
                let absolute = OriginURL.resolve(segment.uri, against: playlistURL)
                let local = OriginURL.localPath(absolute, root: master)
                if item.file(local) != nil {
                    segment.uri = "/items/\(item.id)/\(local)"
                } else if item.originURL != nil {
                    segment.uri = absolute
                } else {
                    return .failure(ScheduleIssues([JSONIssue(path: path.appending("playlist"), reason: "segment \(segment.uri) is not stored in item \(item.id)")]))
                }
                segment.discontinuity = false
                mapped.append(segment)
            }
            let clip = Timeline.Clip(segments: mapped, begin: source.begin, end: source.end)
            guard !clip.cut.isEmpty else {
                return .failure(ScheduleIssues([JSONIssue(path: path.appending("begin"), reason: "the cut keeps no segment (the media lasts \(mapped.reduce(0) { $0 + $1.durationSeconds }) s)")]))
            }
            return .success(mapped)
        }
        return .failure(ScheduleIssues([JSONIssue(path: path.appending("playlist"), reason: "\(root) leads to no media playlist")]))
    }

    /// The item's root playlist: its origin URL's file, else its shallowest `.m3u8` (by name).
    static func rootPlaylist(_ item: CacheItem) -> String? {
        if let origin = item.originURL {
            let local = OriginURL.localPath(origin, root: origin)
            if item.file(local) != nil { return local }
        }
        return item.files.map(\.path).filter { $0.hasSuffix(".m3u8") }
            .min { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
    }
}

/// URL clips (docs/inserts.md "Clips from any URL"): the URL's cache item, resolved once it is cached.
extension ClipResolver {
    enum URLResolution {
        case ready([VODSegment])
        case pending
        case failed(ScheduleIssues)
    }

    /// Asks the cache for the URL's item (a new, failed or deleted one is fetched anew) — only at scheduling.
    func request(_ source: ClipSource, at path: JSONPath) -> ScheduleIssues? {
        guard let url = source.url else { return nil }
        do {
            _ = try cache.add(url: ContentCache.URLAddRequest(url: url, category: "timeline", download: true))
            return nil
        } catch {
            return ScheduleIssues([JSONIssue(path: path.appending("url"), reason: "\(error)")])
        }
    }

    /// The URL clip's segments once its item is cached: the playlist the URL names, or the HLS
    /// rendition of its MP4; pending while the item downloads; failed with the item's error.
    func resolveURL(_ source: ClipSource, at path: JSONPath) -> URLResolution {
        guard let url = source.url else { return .failed(ScheduleIssues([JSONIssue(path: path, reason: "not a URL clip")])) }
        let at = path.appending("url")
        guard let item = cache.item(source.item), item.state != .deleted else {
            return .failed(ScheduleIssues([JSONIssue(path: at, reason: "item \(source.item) for \(url) was deleted")]))
        }
        switch item.state {
        case .cached, .partiallyCached:
            break
        case .failed:
            let reason = "fetching \(url) failed (item \(item.id)): \(item.error?.rawValue ?? "failed")" + (item.errorDetail.map { ": \($0)" } ?? "")
            return .failed(ScheduleIssues([JSONIssue(path: at, reason: reason)]))
        default:
            return .pending
        }
        var clip = source
        if item.file(ContentCache.renditionPlaylist) != nil {
            clip.playlist = ContentCache.renditionPlaylist
        } else if !CacheItem.urlIsPlaylist(url) {
            return .failed(ScheduleIssues([JSONIssue(path: at, reason: "\(url) is neither an HLS playlist (.m3u8) nor an MP4")]))
        }
        switch resolve(clip, at: path) {
        case .success(let segments): return .ready(segments)
        case .failure(let problem):
            // A problem with the item's playlist is the URL's (a URL clip names no playlist).
            return .failed(ScheduleIssues(problem.issues.map { $0.path == path.appending("playlist") ? JSONIssue(path: at, reason: $0.reason) : $0 }))
        }
    }
}
