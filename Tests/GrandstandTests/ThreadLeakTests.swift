import Foundation
import GrandstandCore
import GrandstandRuntime
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import HTTPServer

/// The services' short-lived threads (a log follower each, a download each) are all joined:
/// after 1,000 of each the group holds none and the process is back to its thread count.
@Suite(.serialized) struct ThreadLeakTests {
    @Test func thousandLogFollowSessionsLeaveNoThreadBehind() throws {
        try #require(FileManager.default.fileExists(atPath: "/run/systemd/journal/socket"), "journald (tools/host-journald.sh)")
        let followers = LogFollowers(maximum: 1_000, threadName: "leak-logs")
        var query = LogQuery()
        query.channel = "no-such-channel-\(getpid())"   // nothing matches: each follower waits on the journal
        query.follow = true
        var peak = 0
        for _ in 0..<1_000 {
            let response = followers.start(query, lastEventID: nil)
            let stream = try #require(response.stream, "\(response.status)")
            stream.close()   // the client leaves at once
            peak = max(peak, followers.unjoinedThreads)
        }
        followers.stopAll()
        #expect(followers.unjoinedThreads == 0)
        try expectNoThreads(named: "leak-logs-")
        #expect(followers.start(query, lastEventID: nil).status == 503)
        #expect(peak <= 1_000)
    }

    /// Prefetches against an origin that refuses connections: every download thread starts,
    /// fails its item at once and is joined.
    @Test func thousandPrefetchesLeaveNoThreadBehind() throws {
        var config = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-leak-\(UUID().uuidString)")
        var origin = GatewayConfig.Origin(metadataURL: "http://127.0.0.1:9/meta")   // discard: nothing listens
        origin.attempts = 1
        origin.timeoutSeconds = 1
        config.origin = origin
        config.policy.maxConcurrentDownloads = 16
        let cache = try ContentCache(config, clock: ManualClock(), downloadThreadName: "leak-dl")
        defer { cache.removeDirectory() }
        for index in 0..<1_000 { _ = try cache.add(.init(id: "item-\(index)")) }
        var rounds = 0
        while cache.items().contains(where: { $0.state != .failed }), rounds < 1_000 {
            cache.waitForDownloads()
            cache.schedule()
            rounds += 1
        }
        cache.waitForDownloads()
        #expect(cache.items().filter { $0.state == .failed }.count == 1_000)
        #expect(cache.items().allSatisfy { $0.error == .noNetwork }, "\(cache.items().first { $0.error != .noNetwork }.map { "\($0.id): \($0.error?.rawValue ?? "-")" } ?? "")")
        cache.downloadThreads.waitUntilIdle()
        #expect(cache.downloadThreads.unjoined == 0)
        cache.stop()
        try expectNoThreads(named: "leak-dl-")
    }

    /// The retry backoff waits on the download's stop signal: a shutdown ends a long wait at once
    /// (before, a `usleep` of up to 128 s outlived the unit's 20 s stop timeout).
    @Test func shutdownEndsARetryBackoffAtOnce() throws {
        var config = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-backoff-\(UUID().uuidString)")
        var origin = GatewayConfig.Origin(metadataURL: "http://127.0.0.1:9/meta")
        origin.attempts = 10
        origin.timeoutSeconds = 1
        config.origin = origin
        let clock = ManualClock()
        let cache = try ContentCache(config, clock: clock)
        defer { cache.removeDirectory() }
        _ = try cache.add(.init(id: "stuck"))
        #expect(clock.waitForSleepers(1))   // the download failed once and waits 0.5 s of manual time
        let wall = SystemClock()
        let start = wall.monotonicNanoseconds()
        cache.stop()
        #expect(wall.monotonicNanoseconds() - start < 1_000_000_000)
        #expect(cache.downloadThreads.unjoined == 0)
        #expect(cache.item("stuck")?.state != .failed)   // stopped, not failed: it resumes at the next start
    }
}

/// The daemon's threads carry their service's name, and `stop()` ends and joins them. The bound
/// on the stop is generous (a loaded, emulated machine): it separates "ended its wait at once"
/// from "waited a period out" (the reporter's, the catalog's or a retry backoff).
@Suite(.serialized) struct DaemonThreadTests {
    @Test func daemonThreadsAreNamedAndAllEndAtStop() throws {
        let config = try DaemonTests.config()
        let daemon = Daemon(config: config, board: nil,
                            ingest: LiveIngest.Settings(interface: "gs-nothread0", configuration: .product(config)))
        try daemon.start()
        let names = ["ingest", "serving", "health", "recorder", "http-fan", "http-mgmt"]
        for name in names {
            #expect(ServiceThread.countInProcess(named: name) >= 1, "no thread named \(name)")
        }
        let clock = SystemClock()
        let start = clock.monotonicNanoseconds()
        daemon.stop()
        let took = clock.monotonicNanoseconds() - start
        #expect(took < 5_000_000_000, "stop took \(took / 1_000_000) ms")
        #expect(daemon.ingest == nil && daemon.fanServer == nil && daemon.managementServer == nil)
    }
}

/// No thread named `prefix…` is left in /proc/self/task (under qemu-user a joined thread's host
/// thread can outlive the join for a moment, so /proc is read until it shows none, bounded).
func expectNoThreads(named prefix: String) throws {
    try waitFor("no \(prefix)* thread left in /proc/self/task", timeout: 10) { ServiceThread.countInProcess(named: prefix) == 0 }
}
