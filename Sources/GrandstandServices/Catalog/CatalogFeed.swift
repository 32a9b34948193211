import GrandstandCore
import GrandstandRuntime
import CurlHTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// The daemon's current catalog and where it came from. Sources: `catalog.feedPath` (re-read
/// when its mtime or size changes), `catalog.feedURL` (fetched every `refreshSeconds`), and
/// `update(bytes:source:)` — the hook the file-channel receiver calls when a `catalog.json`
/// arrives (docs/catalog.md "Feed sources"). A feed that cannot be read leaves the last good one.
final class CatalogFeed: Sendable {
    private struct State {
        var current = Catalog()
        var status = Status()
        var lastFileStamp: (mtime: Int, size: Int)?
    }
    private let state = Mutex(State())
    private let settings: GatewayConfig.CatalogSource
    private let events: EventLog
    private let thread = Mutex<ServiceThread?>(nil)
    private let clock: any Clock

    /// What `GET /api/v1/catalog/status` shows.
    struct Status {
        var source: String?
        var loadedAtNanoseconds: Int64?
        var fixtures = 0
        var issues: [JSONIssue] = []
        var lastError: String?
    }

    init(settings: GatewayConfig.CatalogSource, events: EventLog, clock: any Clock = SystemClock()) {
        self.settings = settings
        self.clock = clock
        self.events = events
    }

    var catalog: Catalog { state.withLock { $0.current } }

    /// Replaces the catalog with `bytes` when they decode; returns the fixtures loaded. `source`
    /// names the origin in events and status (`file:/path`, the URL, `flute:catalog.json`).
    @discardableResult
    func update(bytes: [UInt8], source: String) throws(CatalogFeedDecoder.FeedError) -> Int {
        let result: CatalogFeedDecoder.Result
        do {
            result = try CatalogFeedDecoder.decode(bytes)
        } catch {
            state.withLock { $0.status.lastError = "\(source): \(error)" }
            events.record(GatewayEvent(.catalogRejected, "catalog feed from \(source) rejected: \(error)", fields: [("SOURCE", source)]))
            throw error
        }
        let loadedAt = clock.wallNanoseconds()
        state.withLock {
            $0.current = Catalog(result.fixtures)
            $0.status = Status(source: source, loadedAtNanoseconds: loadedAt, fixtures: result.fixtures.count,
                            issues: result.issues, lastError: nil)
        }
        let note = result.issues.first.map { "; first problem: \($0)" } ?? ""
        events.record(GatewayEvent(.catalogUpdated, "catalog: \(result.fixtures.count) fixtures from \(source), \(result.issues.count) left out\(note)",
                                   fields: [("SOURCE", source), ("FIXTURES", String(result.fixtures.count)),
                                            ("ISSUES", String(result.issues.count))]))
        return result.fixtures.count
    }

    var statusJSON: JSONValue {
        let status = state.withLock { $0.status }
        return .object([
            ("source", status.source.map(JSONValue.string) ?? .null),
            ("loadedAt", status.loadedAtNanoseconds.map { .string(RFC3339.format(nanoseconds: $0, fractionDigits: 3)) } ?? .null),
            ("fixtures", .number(Double(status.fixtures))),
            ("issues", .array(status.issues.prefix(50).map { .object([("path", .string($0.path.description)), ("reason", .string($0.reason))]) })),
            ("lastError", status.lastError.map(JSONValue.string) ?? .null),
        ])
    }

    // MARK: Polling the configured file or URL

    /// Loads the configured source once now, then re-checks it every `refreshSeconds`.
    /// The thread is `catalog`.
    func start() throws(RuntimeError) {
        guard settings.feedPath != nil || settings.feedURL != nil else { return }
        refresh()
        let interval = Int64(settings.refreshSeconds) * 1_000_000_000
        let started = try ServiceThread(name: "catalog") { [self] stop in
            while !clock.wait(nanoseconds: interval, or: stop) { refresh() }
        }
        thread.withLock { $0 = started }
    }

    func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
    }

    /// One check of the configured source (also `POST /api/v1/catalog/refresh`).
    func refresh() {
        if let path = settings.feedPath { refreshFile(path) }
        if let url = settings.feedURL { refreshURL(url) }
    }

    private func refreshFile(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            noteFailure("file:\(path)", "stat: \(String(cString: strerror(errno)))")
            return
        }
        let stamp = (mtime: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec), size: Int(info.st_size))
        guard state.withLock({ $0.lastFileStamp.map { $0 != stamp } ?? true }) else { return }
        do {
            guard let bytes = try AtomicFile.read(path, limit: 32 << 20) else { noteFailure("file:\(path)", "missing"); return }
            state.withLock { $0.lastFileStamp = stamp }
            _ = try? update(bytes: bytes, source: "file:\(path)")
        } catch {
            noteFailure("file:\(path)", "\(error)")
        }
    }

    private func refreshURL(_ url: String) {
        var options = CurlOptions()
        options.connectTimeoutSeconds = 10
        options.idleTimeoutSeconds = 10
        options.totalTimeoutSeconds = 60
        options.maxResponseBytes = 32 << 20
        do {
            let response = try CurlClient(options).perform(CurlRequest(url: url))
            guard response.status == 200 else { noteFailure(url, "HTTP \(response.status)"); return }
            _ = try? update(bytes: response.body, source: url)
        } catch {
            noteFailure(url, "\(error)")
        }
    }

    private func noteFailure(_ source: String, _ why: String) {
        let text = "\(source): \(why)"
        let changed = state.withLock { state -> Bool in
            defer { state.status.lastError = text }
            return state.status.lastError != text
        }
        if changed { events.record(GatewayEvent(.catalogRejected, "catalog feed \(source) unavailable: \(why)", fields: [("SOURCE", source)])) }
    }
}
