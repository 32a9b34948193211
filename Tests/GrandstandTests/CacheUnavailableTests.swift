import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// A cache that cannot open (here: its directory under a regular file, ENOTDIR; the store's own
/// tests cover ENOSPC and EROFS) costs the cache, not the service: the daemon starts, says why in
/// a `cache-unavailable` event, and serves live only (issue 10, docs/cache.md).
struct CacheUnavailableTests {
    @Test func anUnusableCacheLeavesTheDaemonServingLiveOnly() throws {
        let blocker = NSTemporaryDirectory() + "gs-cache-blocker-\(getpid())"
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        var config = try DaemonTests.config()
        config.cache = GatewayConfig.Cache(directory: blocker + "/cache")
        let daemon = Daemon(config: config, board: nil)
        try daemon.start()
        defer { daemon.stop() }
        #expect(daemon.cache == nil)
        #expect(daemon.events.hub.recentKinds.contains("cache-unavailable"))
        let status = try #require(daemon.status)
        #expect(try RawHTTPClient(port: status.fan.port).get("/health").status == 200)
        #expect(try RawHTTPClient(port: status.fan.port).get("/channels.json").status == 200)
        // No cache: its routes are not there.
        #expect(try DaemonHealthTests.call(daemon, "GET", "/api/v1/items").status == 404)
    }
}
