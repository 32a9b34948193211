import GrandstandCore
import GrandstandRuntime
import CurlHTTP
import Synchronization

/// Polls fixtures' external live URLs (a playlist or a StreamPlay isLive endpoint on another
/// origin) for `/catalog/live`, on its own thread (`catalog-live`) so the HTTP engine never
/// waits on an origin: a poll request is answered when its URLs are polled (or at once from the
/// cache). Each URL is fetched with the gateway's HTTP client and a total timeout, and its
/// reading kept `cacheSeconds` (failures too), so many fans polling the same fixture cost the
/// origin one request per interval. Search answers use the cached readings only.
/// docs/catalog.md "Polling isLive".
final class CatalogLivePoller: Sendable {
    /// Per URL: connect, send and the whole answer (plus one variant for a master playlist).
    let timeoutSeconds: Double
    /// How long a reading (or a failure) is reused.
    let cacheSeconds: Double
    /// URLs one request may have polled; more get a per-id error.
    static let maximumPerRequest = 16

    typealias Fetch = @Sendable (_ url: String, _ timeoutSeconds: Double) -> ExternalLive

    private struct Entry {
        var reading: ExternalLive
        var expires: Int64
    }
    private struct Job {
        var urls: [String]
        var done: @Sendable ([String: ExternalLive]) -> Void
    }
    private struct State {
        var cache: [String: Entry] = [:]
        var jobs: [Job] = []
        var running = false
    }
    private let state = Mutex(State())
    private let signal = StopSignal()
    private let thread = Mutex<ServiceThread?>(nil)
    private let clock: any Clock
    private let fetch: Fetch

    init(timeoutSeconds: Double = 3, cacheSeconds: Double = 10, clock: any Clock = SystemClock(), fetch: Fetch? = nil) {
        self.timeoutSeconds = timeoutSeconds
        self.cacheSeconds = cacheSeconds
        self.clock = clock
        self.fetch = fetch ?? { url, timeout in Self.poll(url, timeoutSeconds: timeout) }
    }

    /// The last reading of every URL polled (fresh or not): what search answers mark live.
    var readings: [String: ExternalLive] { state.withLock { $0.cache.mapValues(\.reading) } }

    /// The readings of `urls` when every one is fresh in the cache; nil when one needs a poll.
    func fresh(_ urls: [String]) -> [String: ExternalLive]? {
        let now = clock.monotonicNanoseconds()
        return state.withLock { state in
            var readings: [String: ExternalLive] = [:]
            for url in urls {
                guard let entry = state.cache[url], entry.expires > now else { return nil }
                readings[url] = entry.reading
            }
            return readings
        }
    }

    func start() throws(RuntimeError) {
        state.withLock { $0.running = true }
        let started = try ServiceThread(name: "catalog-live", stop: signal) { [self] stop in run(stop) }
        thread.withLock { $0 = started }
    }

    /// Stops the thread; requests still waiting are answered with an error per URL.
    func stop() {
        thread.withLock { thread in defer { thread = nil }; return thread }?.stop()
        let pending = state.withLock { state in
            state.running = false
            defer { state.jobs = [] }
            return state.jobs
        }
        for job in pending { job.done(Dictionary(job.urls.map { ($0, .failed(code: -1, message: "the gateway is stopping")) }) { a, _ in a }) }
    }

    /// Calls `done` with a reading for each of `urls`: at once (on this thread) when all are
    /// fresh in the cache, else from the poller's thread once it has polled the others.
    func poll(_ urls: [String], done: @escaping @Sendable ([String: ExternalLive]) -> Void) {
        let now = clock.monotonicNanoseconds()
        let (fresh, queued): ([String: ExternalLive]?, Bool) = state.withLock { state in
            var readings: [String: ExternalLive] = [:]
            for url in urls {
                guard let entry = state.cache[url], entry.expires > now else {
                    guard state.running else { return (nil, false) }
                    state.jobs.append(Job(urls: urls, done: done))
                    return (nil, true)
                }
                readings[url] = entry.reading
            }
            return (readings, false)
        }
        if let fresh { return done(fresh) }
        if queued { return signal.wake() }
        done(Dictionary(urls.map { ($0, .failed(code: -1, message: "live URL polling is not running")) }) { a, _ in a })
    }

    private func run(_ stop: StopSignal) {
        while !stop.isRaised {
            let generation = stop.generation
            guard let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) else {
                if stop.wait(untilMonotonic: nil, changedFrom: generation) { return }
                continue
            }
            var readings: [String: ExternalLive] = [:]
            for url in job.urls {
                let now = clock.monotonicNanoseconds()
                if let entry = state.withLock({ $0.cache[url] }), entry.expires > now {
                    readings[url] = entry.reading
                    continue
                }
                let reading = stop.isRaised ? ExternalLive.failed(code: -1, message: "the gateway is stopping") : fetch(url, timeoutSeconds)
                readings[url] = reading
                let expires = clock.monotonicNanoseconds() + Int64(cacheSeconds * 1e9)
                state.withLock { state in
                    state.cache[url] = Entry(reading: reading, expires: expires)
                    // Forget readings nobody asked for in a long while (a feed replaced, fixtures gone).
                    if state.cache.count > 4_096 { state.cache = state.cache.filter { $0.value.expires > now } }
                }
            }
            job.done(readings)
        }
    }

    /// One poll of `url` with libcurl (`CurlHTTP`: http or https, the system CAs, redirects, the
    /// whole poll bounded by `timeoutSeconds`): the playlist or isLive answer read by
    /// `ExternalLive.read`, following a master playlist to its first variant once.
    static func poll(_ url: String, timeoutSeconds: Double) -> ExternalLive {
        var options = CurlOptions()
        options.connectTimeoutSeconds = timeoutSeconds
        options.totalTimeoutSeconds = timeoutSeconds
        options.maxResponseBytes = 1 << 20
        let client = CurlClient(options)
        var current = url
        for _ in 0..<2 {
            let response: CurlResponse
            do {
                response = try client.perform(CurlRequest(url: current, headers: [("Accept", "application/vnd.apple.mpegurl, application/json;q=0.9, */*;q=0.1")]))
            } catch {
                return .failed(code: -1, message: "\(current): \(error)")
            }
            switch ExternalLive.read(status: response.status, body: response.body) {
            case .result(let reading): return reading
            case .variant(let reference):
                // Relative to the URL that answered (after redirects).
                guard let next = ExternalLive.resolve(reference, against: response.head.url.isEmpty ? current : response.head.url) else {
                    return .failed(code: -1, message: "\(current): variant \"\(reference)\" is not an http(s) URL")
                }
                current = next
            }
        }
        return .failed(code: -1, message: "\(url): the variant playlist is a master playlist too")
    }
}
