import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing

/// Each clocked service on a `ManualClock`: its periodic work happens when the test steps time
/// (never by waiting), and its `stop()` ends its thread with the clock standing still — a stop
/// that needed a period to pass would never return here, so it is caught as a hang (bounded by
/// `stopsWithTimeStandingStill`), not by timing. docs/architecture.md, "The service runtime".
@Suite(.serialized) struct ServiceLifecycleTests {
    static func scratch(_ name: String) -> String {
        NSTemporaryDirectory() + "gs-lifecycle-\(name)-\(UUID().uuidString)"
    }

    /// `stop` called on its own thread ends within the bound while the manual clock does not move.
    static func stopsWithTimeStandingStill(_ clock: ManualClock, _ stop: @escaping @Sendable () -> Void) throws -> Bool {
        let before = clock.monotonicNanoseconds()
        let done = StopSignal()
        let stopper = try ServiceThread(name: "test-stopper") { _ in
            stop()
            done.raise()
        }
        defer { stopper.stop() }
        let stopped = done.wait(untilMonotonic: SystemClock().monotonicNanoseconds() + 10_000_000_000)
        return stopped && clock.monotonicNanoseconds() == before
    }

    @Test func gatewayDropsARemovedChannelAfterItsWindowOnClockSteps() throws {
        let clock = ManualClock()
        var settings = Gateway.Settings()
        settings.keepRemovedNanoseconds = 5_000_000_000
        settings.videoHealth = false
        let gateway = Gateway(settings: settings, clock: clock)
        try gateway.start()
        let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
        gateway.handle([.channelsChanged([.added(channel)])])
        gateway.handle([.channelsChanged([.removed(channel, reason: .deleted)])])
        #expect(clock.waitForSleepers(1))
        // Removed channels are looked at on the thumbnail cadence (every 3 s).
        clock.advance(by: 4_000_000_000)
        #expect(clock.waitForSleepers(1))
        #expect(gateway.videoChannel("cam") != nil)   // still inside its 5 s window
        clock.advance(by: 3_000_000_000)
        #expect(clock.waitForSleepers(1))
        #expect(gateway.videoChannel("cam") == nil)
        #expect(try Self.stopsWithTimeStandingStill(clock) { gateway.stop() })
    }

    @Test func healthThreadBeatsOnClockStepsAndStops() throws {
        let clock = ManualClock()
        let config = try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}}"#.utf8))
        let health = HealthLoop(config: config, board: nil, leds: nil, events: EventLog(stderrOnly: true), clock: clock,
                                observe: { lifecycle, _ in HealthObservation(lifecycle: lifecycle) },
                                traffic: { 0 })
        try health.start()
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 10_000_000_000)
        #expect(clock.waitForSleepers(1))
        #expect(health.isAlive(within: 0))   // it beat at the new time
        #expect(try Self.stopsWithTimeStandingStill(clock) { health.stop() })
    }

    /// The capture loop waits on its ring's poll(2) (I/O, 200 ms while the interface is missing),
    /// not on the clock, so the test waits for the loop's heartbeat at the stepped time.
    @Test func captureRetriesAMissingInterfaceOnClockStepsAndStops() throws {
        let clock = ManualClock()
        let ingest = try LiveIngest(settings: LiveIngest.Settings(interface: "gs-absent0", configuration: IngestConfiguration()),
                                    events: EventLog(stderrOnly: true), clock: clock) { _ in }
        try ingest.start()
        try waitFor("the capture loop's first round") { ingest.snapshot.lastError != nil }
        clock.advance(by: 1_000_000_000)
        try waitFor("the capture loop's heartbeat at the stepped time") { ingest.isAlive(within: 0) }
        #expect(!ingest.snapshot.capturing)
        #expect(try Self.stopsWithTimeStandingStill(clock) { ingest.stop() })
    }

    @Test func recorderNoticesAGoneChannelOnItsNextTickAndStops() throws {
        let clock = ManualClock()
        let directory = Self.scratch("records")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = Gateway.Settings()
        settings.videoHealth = false
        let gateway = Gateway(settings: settings, clock: clock)
        let recorder = Recorder(store: RecordStore(stateDirectory: directory), gateway: gateway, events: EventLog(stderrOnly: true), clock: clock)
        let channel = Channel(id: "cam", name: "Cam", kind: .video, group: nil, port: 5000, fec: .none, origin: .config)
        gateway.handle([.channelsChanged([.added(channel)])])
        try recorder.start()
        _ = try recorder.startRecording(name: "r", channel: "cam")
        #expect(clock.waitForSleepers(1))
        gateway.handle([.channelsChanged([.removed(channel, reason: .deleted)])])
        #expect(recorder.record("r")?.state == .recording)   // nothing happens until the next tick
        clock.advance(by: 100_000_000)
        #expect(clock.waitForSleepers(1))
        #expect(recorder.record("r")?.state == .completed)   // a SAP deletion: the stream ended
        #expect(try Self.stopsWithTimeStandingStill(clock) { recorder.stop() })
    }

    @Test func catalogFeedRereadsItsFileEveryRefreshPeriodAndStops() throws {
        let clock = ManualClock()
        let path = Self.scratch("feed") + ".json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let one = #"{"fixtures":[{"id":"f1","type":"match","name":"One","startDate":"2026-11-21T15:00:00Z"}]}"#
        let two = #"{"fixtures":[{"id":"f1","type":"match","name":"One","startDate":"2026-11-21T15:00:00Z"},{"id":"f2","type":"match","name":"Two","startDate":"2026-11-22T15:00:00Z"}]}"#
        try Data(one.utf8).write(to: URL(fileURLWithPath: path))
        var source = GatewayConfig.CatalogSource()
        source.feedPath = path
        source.refreshSeconds = 60
        let feed = CatalogFeed(settings: source, events: EventLog(stderrOnly: true), clock: clock)
        try feed.start()
        #expect(feed.catalog.fixtures.count == 1)
        #expect(clock.waitForSleepers(1))
        try Data(two.utf8).write(to: URL(fileURLWithPath: path))
        clock.advance(by: 59_000_000_000)
        #expect(clock.waitForSleepers(1))
        #expect(feed.catalog.fixtures.count == 1)        // not yet a period
        clock.advance(by: 1_000_000_000)
        #expect(clock.waitForSleepers(1))
        #expect(feed.catalog.fixtures.count == 2)
        #expect(try Self.stopsWithTimeStandingStill(clock) { feed.stop() })
    }

    @Test func reporterStopsWithTimeStandingStill() throws {
        let clock = ManualClock()
        let directory = Self.scratch("reporter")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = Reporter.Settings(target: UploadTarget(host: "127.0.0.1", port: 9, target: "/reports"), intervalMilliseconds: 60_000,
                                         timeoutMilliseconds: 1_000, backoff: UploadBackoff(initialMilliseconds: 50, maxMilliseconds: 400),
                                         queueDirectory: directory + "/queue", queueLimit: 10)
        let reporter = try Reporter(settings: settings, stateDirectory: directory, sources: Reporter.Sources(), clock: clock)
        try reporter.start()
        #expect(clock.waitForSleepers(1))
        #expect(try Self.stopsWithTimeStandingStill(clock) { reporter.stop() })
    }

    @Test func contentCacheStopsWithTimeStandingStill() throws {
        let clock = ManualClock()
        let cache = try ContentCache(GatewayConfig.Cache(directory: Self.scratch("cache")), clock: clock)
        defer { cache.removeDirectory() }
        try cache.start()
        #expect(clock.waitForSleepers(1))
        #expect(try Self.stopsWithTimeStandingStill(clock) { cache.stop() })
    }
}
