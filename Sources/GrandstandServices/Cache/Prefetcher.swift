import GrandstandCore
import GrandstandRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a running download is asked to do next (set by API actions and shutdown, read per chunk).
/// Any request but `run` raises `signal`, which the download checks per chunk and which ends a
/// retry backoff at once; `finished` is raised when the download's thread is done with it.
final class DownloadControl: Sendable {
    enum Request { case run, pause, cancel, delete, shutdown }
    private let request = Mutex(Request.run)
    let signal = StopSignal()
    let finished = StopSignal()

    func ask(_ next: Request) {
        request.withLock { if $0 == .run { $0 = next } }
        signal.raise()
    }
    func shutdown() {
        request.withLock { $0 = .shutdown }
        signal.raise()
    }
    var current: Request { request.withLock { $0 } }
    var shouldStop: Bool { current != .run }
}

/// Download-to-go: adding items by content id, the scheduler, and the per-item download
/// (metadata → progressive files and HLS VOD → cached or partially cached).
extension ContentCache {
    /// What a POST /api/v1/items asks for.
    struct AddRequest {
        var id: String
        var category: String?
        var prepositionSeconds: Double?
        var quality: VariantChoice?
        /// The item's token hook (`headers`, `cookies`, `query`, `perType`).
        var token = OriginTokenHook()
        /// Download once discovered even when `itemDownloadBehavior` is None or ThumbnailOnly.
        var download = false

        init(id: String, category: String? = nil, prepositionSeconds: Double? = nil, quality: VariantChoice? = nil,
             headers: [String: String] = [:], query: String? = nil, token: OriginTokenHook = OriginTokenHook(), download: Bool = false) {
            self.id = id
            self.category = category
            self.prepositionSeconds = prepositionSeconds
            self.quality = quality
            self.token = token
            self.token.all.headers.merge(headers) { $1 }
            if let query { self.token.all.query = query }
            self.download = download
        }
    }

    /// Adds (or re-adds a deleted or failed) item by content id; it waits for its metadata.
    func add(_ request: AddRequest) throws -> CacheItem {
        guard let origin = configuration.origin else { throw CacheRefusal(reason: "no cache.origin is configured") }
        var fetch = OriginFetch(origin: origin)
        fetch.item = request.token
        var item = CacheItem(id: request.id, source: .origin, category: request.category ?? "", state: .metadataNotReceived, now: now())
        item.prepositionSeconds = request.prepositionSeconds
        item.quality = request.quality
        item.originToken = request.token
        // An unknown content id waits `metadata-not-received` with its error: asking again replaces it (asks now).
        if let existing = self.item(request.id), existing.state != .deleted, existing.state != .failed,
           !(existing.state == .metadataNotReceived && existing.error != nil) {
            // Asked to download: an item waiting discovered (None, ThumbnailOnly) starts now.
            guard request.download else { return existing }
            if existing.state == .discovered { return try resume(request.id) ?? existing }
            _ = withState { $0.requested.insert(request.id) }
            return existing
        }
        if self.item(request.id) != nil { try deleteFiles(request.id, tombstone: true) }
        withState { state in   // before the item exists: the scheduler may start it at once
            state.tokens[request.id] = fetch
            state.metadataRetry[request.id] = nil
            if request.download { state.requested.insert(request.id) } else { state.requested.remove(request.id) }
        }
        try insert(item)
        schedule()
        return item
    }

    func lockedTokens<T: Sendable>(_ body: (inout [String: OriginFetch]) -> T) -> T { withState { body(&$0.tokens) } }

    // MARK: Actions

    func pause(_ id: String) throws -> CacheItem? {
        if let control = withState({ $0.downloads[id] }) { control.ask(.pause); waitForStop(id) }
        return try update(id) { item in if item.state != .paused { try item.move(to: .paused) } }
    }

    func resume(_ id: String) throws -> CacheItem? {
        if let waiting = item(id), waiting.state == .metadataNotReceived {
            // An unknown content id (or one not asked yet): ask for its metadata now.
            withState { $0.metadataRetry[id] = 0 }
            schedule()
            return item(id) ?? waiting
        }
        let item = try update(id) { try $0.move(to: .queued) }
        schedule()
        return item
    }

    /// Stops a download for good: failed with `cancelled`.
    func cancel(_ id: String) throws -> CacheItem? {
        if let control = withState({ $0.downloads[id] }) { control.ask(.cancel); waitForStop(id) }
        return try update(id) { item in
            if item.state != .failed { try item.move(to: .failed, error: .cancelled, detail: "cancelled by the operator") }
        }
    }

    func cancelDownload(_ id: String) {
        if let control = withState({ $0.downloads[id] }) { control.ask(.delete); waitForStop(id) }
    }

    /// Waits until the downloads running now have ended (their threads are done with them).
    func waitForDownloads() {
        for control in withState({ Array($0.downloads.values) }) { _ = control.finished.wait(untilMonotonic: nil) }
    }

    private func waitForStop(_ id: String) {
        if let control = withState({ $0.downloads[id] }) { _ = control.finished.wait(untilMonotonic: nil) }
    }

    // MARK: The download

    /// One item's download, on its thread: metadata (or an item by URL's own file), then its
    /// files or HLS VOD (the scheduler launches it).
    func run(_ id: String, _ control: DownloadControl) {
        let direct = item(id).flatMap { $0.source == .url ? $0.originURL : nil }   // an item by URL (URLItems.swift)
        guard let origin = direct != nil ? urlOrigin : configuration.origin else { return }
        // The tokens given with the POST, or after a restart the ones the journal kept with the item.
        var fetch = OriginFetch(origin: origin)
        if let given = lockedTokens({ $0[id] }) { fetch = given } else if let item = item(id) { fetch.item = item.originToken }
        fetch.clock = clock
        let stop = control.signal
        // A newly discovered item follows itemDownloadBehavior unless asked to download; one
        // queued by a request (resume, download) downloads.
        let fresh = item(id)?.state == .metadataNotReceived
        do {
            var metadata = try direct.map(OriginMetadata.init(direct:)) ?? loadMetadata(id, fetch: fetch, stop: stop)
            guard !stop.isRaised else { return settle(id, control) }
            let master = metadata.hls.map { fetch.resolve($0, fetch.origin.mediaBaseURL ?? metadata.url) }
            let asked = withState { $0.requested.remove(id) != nil }
            let behavior = fresh && !asked ? policy.itemDownloadBehavior : .fullAuto
            try update(id) { item in
                if item.state == .metadataNotReceived { try item.move(to: .discovered) }
                if item.state == .discovered, behavior == .fullAuto { try item.move(to: .queued) }
                if item.category.isEmpty, let category = metadata.category { item.category = category }
                item.expectedBytes = metadata.totalBytes
                item.originURL = master ?? direct
                item.title = metadata.title
                item.type = metadata.itemType
                item.thumbnail = metadata.thumbnail?.path
            }
            let blocks = policy.blocks(usage(), nowSeconds: now() / 1_000_000_000).filter { $0 != .concurrencyLimit }
            guard behavior == .fullAuto else {
                // Waits discovered for a request; ThumbnailOnly fetches the thumbnail meanwhile.
                if behavior == .thumbnailOnly, blocks.isEmpty, let thumbnail = metadata.thumbnail {
                    _ = try downloadFiles(id, [thumbnail], fetch: fetch, stop: stop)
                }
                return
            }
            guard blocks.isEmpty else {
                try update(id) { try $0.move(to: .idle, error: blocks.lazy.compactMap(CacheErrorCode.init(block:)).first,
                                                detail: Self.idleDetail(blocks)) }
                return
            }
            try update(id) { try $0.move(to: .downloading) }
            var complete = try downloadFiles(id, (metadata.thumbnail.map { [$0] } ?? []) + metadata.files, fetch: fetch, stop: stop)
            if let master {
                let seconds = item(id)?.prepositionSeconds
                complete = try downloadHLS(id, master: master, seconds: seconds, quality: item(id)?.quality ?? .all, fetch: fetch, stop: stop) && complete
            }
            if direct != nil, complete, master == nil, let file = metadata.files.first {
                try makeRendition(id, path: file.path, stop: stop)   // an MP4's HLS rendition (MP4Rendition.swift)
            }
            metadata.files = []
            guard !stop.isRaised else { return settle(id, control) }
            try update(id) { try $0.move(to: complete ? .cached : .partiallyCached) }
        } catch let failure as OriginFailure {
            guard !stop.isRaised else { return settle(id, control) }
            if failure.code == .contentIDDoesNotExist {
                let due = clock.monotonicNanoseconds() + Self.metadataRetrySeconds * 1_000_000_000
                withState { $0.metadataRetry[id] = due }
            }
            _ = try? update(id) { item in
                if item.state == .paused || item.state == .deleted { return }
                if item.state == .metadataNotReceived, failure.code == .contentIDDoesNotExist {
                    // The SDK's unknown content id: no metadata yet, with the reason; asked again later.
                    item.error = failure.code
                    item.errorDetail = failure.detail
                    return
                }
                try item.move(to: .failed, error: failure.code, detail: failure.detail)
            }
        } catch {
            guard !stop.isRaised else { return settle(id, control) }
            _ = try? update(id) { item in
                try item.move(to: .failed, error: .downloadFailed, detail: "\(error)")
            }
        }
    }

    /// Where a stopped download leaves its item: paused, cancelled (the caller records it),
    /// deleted (the caller removes it), or shutdown (stays downloading, resumes next start).
    private func settle(_ id: String, _ control: DownloadControl) {
        guard control.current == .pause else { return }
        _ = try? update(id) { item in if item.state != .paused { try item.move(to: .paused) } }
    }

    /// The metadata document: fetched once, then kept as the item's `metadata.json`.
    private func loadMetadata(_ id: String, fetch: OriginFetch, stop: StopSignal) throws -> OriginMetadata {
        let url = fetch.origin.metadataURL + (fetch.origin.metadataURL.hasSuffix("/") ? "" : "/") + OriginMetadata.escape(id)
        if let (_, _, path) = file(id, path: OriginMetadata.fileName), let bytes = try? readFile(path),
           let metadata = try? OriginMetadata.parse(bytes, url: url) {
            return metadata
        }
        let bytes = try fetch.get(url, type: "metadata", notFound: .contentIDDoesNotExist, stop: stop)
        let metadata: OriginMetadata
        do {
            metadata = try OriginMetadata.parse(bytes, url: url)
        } catch {
            throw OriginFailure(code: .itemCorrupted, detail: "metadata for \(id): \(error)", retryable: false)
        }
        try storeBytes(bytes, id: id, path: OriginMetadata.fileName, contentType: "application/json")
        return metadata
    }

    /// Progressive files; true when every one is stored.
    private func downloadFiles(_ id: String, _ files: [OriginMetadata.File], fetch: OriginFetch,
                               stop: StopSignal) throws -> Bool {
        for file in files {
            if stop.isRaised { return false }
            if self.file(id, path: file.path) != nil { continue }
            try fetchFile(id, url: fetch.resolve(file.url, fetch.origin.mediaBaseURL ?? fetch.origin.metadataURL), path: file.path,
                          size: file.size, sha256: file.sha256, contentType: file.contentType, fetch: fetch, stop: stop)
        }
        return !stop.isRaised
    }

    /// An HLS VOD: the master (only the variants `quality` chooses, with the renditions of the
    /// groups they name), its media playlists, their keys and init sections, and their segments
    /// (only those starting in the first `seconds` when pre-positioning). Keys whose URI is not
    /// http(s) (`skd://`: FairPlay) stay as they are. True when every segment is stored.
    private func downloadHLS(_ id: String, master: String, seconds: Double?, quality: VariantChoice, fetch: OriginFetch,
                             stop: StopSignal) throws -> Bool {
        var complete = true
        var playlists = [master]
        while let url = playlists.first {
            playlists.removeFirst()
            let path = OriginURL.localPath(url, root: master)
            var bytes = try fetch.get(url, notFound: .httpError, stop: stop)
            guard let playlist = VODPlaylist(String(decoding: bytes, as: UTF8.self)) else {
                throw OriginFailure(code: .itemCorrupted, detail: "\(url) is not an HLS playlist", retryable: false)
            }
            if playlist.kind == .master {
                let chosen = quality.choose(playlist.variants)
                if quality != .all, let kept = playlist.master(keeping: { variant in chosen.contains(variant) }) { bytes = Array(kept.utf8) }
                guard let stored = VODPlaylist(String(decoding: bytes, as: UTF8.self)) else { continue }
                try storeBytes(bytes, id: id, path: path, contentType: "application/vnd.apple.mpegurl")
                for reference in stored.references where reference.isPlaylist {
                    playlists.append(OriginURL.resolve(reference.uri, against: url))
                }
                for reference in stored.references where reference.role == .key {
                    try fetchReference(id, reference, playlistURL: url, master: master, fetch: fetch, stop: stop)
                }
                continue
            }
            try storeBytes(bytes, id: id, path: path, contentType: "application/vnd.apple.mpegurl")
            let wanted = seconds.map { playlist.prefix(seconds: $0) } ?? playlist.references
            complete = complete && wanted.count == playlist.references.count
            for reference in wanted {
                if stop.isRaised { return false }
                try fetchReference(id, reference, playlistURL: url, master: master, fetch: fetch, stop: stop)
            }
        }
        return complete
    }

    /// A segment, init section or key of a playlist at `playlistURL`, unless stored already.
    private func fetchReference(_ id: String, _ reference: VODPlaylist.Reference, playlistURL: String, master: String,
                                fetch: OriginFetch, stop: StopSignal) throws {
        guard !OriginURL.isForeign(reference.uri) else { return }
        let url = OriginURL.resolve(reference.uri, against: playlistURL)
        let path = OriginURL.localPath(url, root: master)
        if file(id, path: path) != nil { return }
        let type: String? = path.hasSuffix(".ts") ? "video/mp2t" : path.hasSuffix(".vtt") ? "text/vtt" : nil
        try fetchFile(id, url: url, path: path, size: nil, sha256: nil, contentType: type, tokenType: reference.role == .key ? "key" : nil,
                      fetch: fetch, stop: stop)
    }

    private func fetchFile(_ id: String, url: String, path: String, size: Int?, sha256: String?, contentType: String?,
                           tokenType: String? = nil, fetch: OriginFetch, stop: StopSignal) throws {
        if let size, let refusal = policy.refusal(fileBytes: size) {
            throw OriginFailure(code: .downloadFailed, detail: "\(path): \(refusal)", retryable: false)
        }
        let partial = partialPath(id, path)
        let download = FileDownload(fetch: fetch, url: url, type: tokenType, partialPath: partial, maxBytes: min(policy.maxFileBytes, policy.sizeBytes),
                                    stop: stop, received: { [self] count, bytes, total in
                                        received(count, id: id, path: path, fileBytes: bytes, fileSize: total ?? size)
                                    })
        guard case .complete(let received) = try download.run() else { return }
        if let size, received != size {
            unlink(partial)
            throw OriginFailure(code: .itemCorrupted, detail: "\(url): \(received) bytes, the metadata says \(size)", retryable: false)
        }
        do {
            try adopt(partial, sha256: sha256, size: received, id: id, path: path, contentType: contentType)
        } catch let error as CacheRefusal {
            throw OriginFailure(code: .downloadFailed, detail: "\(path): \(error)", retryable: false)
        } catch {
            unlink(partial)
            throw OriginFailure(code: .itemCorrupted, detail: "\(url): \(error)", retryable: false)
        }
    }

    private func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CacheRefusal(reason: "cannot open \(path)") }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return out }
            out += chunk[0..<count]
        }
    }
}

extension OriginFetch {
    /// `reference` resolved against `base` (absolute references as they are).
    func resolve(_ reference: String, _ base: String) -> String { OriginURL.resolve(reference, against: base) }
}
