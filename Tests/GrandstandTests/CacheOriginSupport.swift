import Foundation
import GrandstandCore
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import GrandstandServices

/// tools/cache-origin/origin.py serving a scratch root: metadata documents, media (the HLS VOD
/// fixture under media/vod), and misbehaving paths (docs in the script).
final class CacheOrigin {
    let root: String
    let port: UInt16
    private let process = Process()

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/cache-origin/origin.py").path
    }

    /// Plain http on the host's loopback; with `tls` (certificate, key) HTTPS, and with
    /// `namespace` inside that network namespace (reached from threads that entered it).
    init(tls: (certificate: String, key: String)? = nil, namespace: NetworkNamespace? = nil) throws {
        root = NSTemporaryDirectory() + "gs-origin-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/meta", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/media", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("cache/vod"), toPath: root + "/media/vod")
        try FileManager.default.copyItem(atPath: Fixtures.path("cache/renditions"), toPath: root + "/media/renditions")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        scheme = tls == nil ? "http" : "https"
        process.arguments = (namespace.map { ["ip", "netns", "exec", $0.name] } ?? []) + ["python3", Self.script, root, root + "/port"]
            + (tls.map { [$0.certificate, $0.key] } ?? [])
        try process.run()
        var found: UInt16?
        let child = process, portFile = root + "/port"
        try waitFor("the origin's port file", timeout: 30) {
            found = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { UInt16($0) }
            return found != nil || !child.isRunning
        }
        guard let found else { throw OriginDied() }
        port = found
    }

    struct OriginDied: Error, CustomStringConvertible { var description: String { "origin.py exited at start (python3 missing?)" } }

    let scheme: String
    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    func metadata(_ id: String, _ json: String) throws {
        try json.write(toFile: root + "/meta/\(id).json", atomically: true, encoding: .utf8)
    }

    func media(_ path: String, _ bytes: [UInt8]) throws {
        try FileManager.default.createDirectory(atPath: root + "/media/" + (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: root + "/media/" + path, contents: Data(bytes))
    }

    /// Requests seen so far: `PATH RANGE X-TOKEN QUERY X-ITEM-TOKEN COOKIE X-KEY-TOKEN X-META-TOKEN` lines.
    var requests: [String] {
        ((try? String(contentsOfFile: root + "/requests.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A cache configuration on a fresh directory fetching from this origin.
    func cacheConfig(timeout: Double = 3, attempts: Int = 2) -> GatewayConfig.Cache {
        var cache = GatewayConfig.Cache(directory: NSTemporaryDirectory() + "gs-cache-\(UUID().uuidString)")
        var origin = GatewayConfig.Origin(metadataURL: base + "/meta")
        origin.mediaBaseURL = base + "/media/"
        origin.timeoutSeconds = timeout
        origin.attempts = attempts
        cache.origin = origin
        return cache
    }
}

/// Deterministic bytes for test media.
func cacheTestBytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}

extension ContentCache {
    /// Polls until the item reaches `state` (or any final state) and returns it.
    func waitForItem(_ id: String, _ states: Set<CacheItemState>, timeout: Double = 60) throws -> CacheItem {
        var last: CacheItem?
        try waitFor("item \(id) to become \(states.map(\.rawValue).sorted())", timeout: timeout) {
            last = item(id)
            return last.map { states.contains($0.state) } ?? false
        }
        guard let last else { throw WaitTimeout(what: "item \(id)", seconds: timeout) }
        return last
    }

    func removeDirectory() { try? FileManager.default.removeItem(atPath: configuration.directory) }
}
