import Foundation
import GrandstandCore
import TestSupport
import Testing

/// What the fan listener sends with each resource (docs/serving.md, "Headers"): MIME types,
/// Cache-Control, ETag and 304, byte ranges (206/416), HEAD, CORS, no-store on errors. Real
/// sockets (RawHTTPClient) against a daemon fed from the sample file.
struct FanHeadersTests {
    static func get(_ fed: ServingTests.Fed, _ target: String, _ headers: [String] = [], method: String = "GET") throws -> RawHTTPClient.Reply {
        let request = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        return try RawHTTPClient(port: fed.port).send(Array(request.utf8))
    }

    @Test func segmentsAndPartsAreImmutableWithStrongTagsAndRanges() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist("live-ts.m3u8").contains("seg2.ts") }
        let full = try Self.get(fed, "/channels/cam/seg1.ts")
        #expect(full.status == 200)
        #expect(full.headers["content-type"] == "video/mp2t")
        #expect(full.headers["cache-control"] == "public, max-age=60, immutable")
        #expect(full.headers["accept-ranges"] == "bytes")
        #expect(full.headers["access-control-allow-origin"] == "*")
        let tag = try #require(full.headers["etag"])
        #expect(tag.hasPrefix("\"cam.") && tag.hasSuffix(".seg1\""), "\(tag)")
        let length = full.body.count
        #expect(full.headers["content-length"] == String(length))
        #expect(length > 188 * 10)

        // A part has its own tag.
        let part = try Self.get(fed, "/channels/cam/seg1.0.ts")
        #expect(part.status == 200)
        #expect(part.headers["etag"].map { $0 != tag && $0.hasSuffix(".seg1.0\"") } == true)

        // Ranges: first packet, last packet, open end, past the end, several, malformed.
        let first = try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=0-187"])
        #expect(first.status == 206)
        #expect(first.headers["content-range"] == "bytes 0-187/\(length)")
        #expect(first.headers["content-length"] == "188")
        #expect(first.body == Array(full.body[0..<188]))
        let last = try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=-188"])
        #expect(last.status == 206)
        #expect(last.body == Array(full.body[(length - 188)...]))
        #expect(last.headers["content-range"] == "bytes \(length - 188)-\(length - 1)/\(length)")
        let open = try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=1000-"])
        #expect(open.status == 206)
        #expect(open.body == Array(full.body[1000...]))
        let beyond = try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=\(length)-"])
        #expect(beyond.status == 416)
        #expect(beyond.headers["content-range"] == "bytes */\(length)")
        #expect(try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=0-1,4-5"]).body.count == length)
        #expect(try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=9-3"]).status == 200)
        #expect(try Self.get(fed, "/channels/cam/seg1.ts", ["Range: pages=1-2"]).status == 200)

        // If-Range: the range only for the current tag; If-None-Match: 304 without a body.
        #expect(try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=0-9", "If-Range: \(tag)"]).status == 206)
        #expect(try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=0-9", "If-Range: \"old\""]).status == 200)
        let notModified = try Self.get(fed, "/channels/cam/seg1.ts", ["If-None-Match: \"x\", \(tag)"])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers["etag"] == tag)
        #expect(notModified.headers["cache-control"] == "public, max-age=60, immutable")
        #expect(try Self.get(fed, "/channels/cam/seg1.ts", ["If-None-Match: \"x\""]).status == 200)

        // HEAD: the GET's headers and length, no body; Range is ignored on HEAD (RFC 9110 §14.2).
        let head = try Self.get(fed, "/channels/cam/seg1.ts", ["Range: bytes=0-9"], method: "HEAD")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["content-length"] == String(length))
        #expect(head.headers["etag"] == tag)
        #expect(head.headers["content-type"] == "video/mp2t")
    }

    @Test func playlistsGetTagsSoPollingClientsGet304UntilTheyChange() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist("live-ts.m3u8").contains("seg2.ts") }
        let live = try Self.get(fed, "/channels/cam/live.m3u8")
        #expect(live.headers["content-type"] == "application/vnd.apple.mpegurl")
        #expect(live.headers["cache-control"] == "no-cache")
        let tag = try #require(live.headers["etag"])
        #expect(live.headers["etag"] == EntityTag.forBody(live.body))
        #expect(try Self.get(fed, "/channels/cam/live.m3u8", ["If-None-Match: \(tag)"]).status == 304)
        let head = try Self.get(fed, "/channels/cam/live.m3u8", [], method: "HEAD")
        #expect(head.headers["content-length"] == String(live.body.count))
        #expect(head.headers["etag"] == tag && head.body.isEmpty)
        // A new part changes the playlist and its tag.
        let before = fed.playlist()
        fed.feed { fed.playlist() != before }
        let changed = try Self.get(fed, "/channels/cam/live.m3u8", ["If-None-Match: \(tag)"])
        #expect(changed.status == 200)
        #expect(changed.headers["etag"] != tag)

        // Blocking reload answers (now or deferred) may be cached: their URL names one state.
        let hint = try #require(DemoEndToEndTests.preloadHint(fed.playlist()))
        let now = try Self.get(fed, "/channels/cam/live.m3u8?_HLS_msn=\(hint.msn)&_HLS_part=0")
        #expect(now.status == 200)
        #expect(now.headers["cache-control"] == "public, max-age=12")
        let waiting = Thread.detachNewThreadResult {
            try? Self.get(fed, "/channels/cam/live.m3u8?_HLS_msn=\(hint.msn)&_HLS_part=\(hint.part)")
        }
        try fed.waitForHeldRequests(1)
        fed.feed { waiting.isDone }
        let deferred: RawHTTPClient.Reply?? = waiting.wait()
        guard let reply = deferred ?? nil else { Issue.record("the held reload got no answer"); return }
        #expect(reply.status == 200)
        #expect(reply.headers["cache-control"] == "public, max-age=12")
        #expect(reply.headers["access-control-allow-origin"] == "*")
        #expect(reply.headers["etag"] == EntityTag.forBody(reply.body))
        // A refused reload is not cacheable.
        let refused = try Self.get(fed, "/channels/cam/live.m3u8?_HLS_msn=\(hint.msn + 5)")
        #expect(refused.status == 400)
        #expect(refused.headers["cache-control"] == "no-store")

        let rewind = try Self.get(fed, "/channels/cam/rewind.m3u8?offset=-20")
        #expect(rewind.headers["content-type"] == "application/vnd.apple.mpegurl")
        #expect(rewind.headers["cache-control"] == "no-cache")
        #expect(rewind.headers["etag"] != nil)
    }

    @Test func everyOtherResourceHasItsTypeAndCachePolicy() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist("live-ts.m3u8").contains("seg2.ts") }
        try waitFor("a thumbnail") { (try? Self.get(fed, "/channels/cam/thumbnail.jpg"))?.status == 200 }
        let expectations: [(String, String, String)] = [
            ("/", "text/html; charset=utf-8", "no-cache"),
            ("/channels.json", "application/json", "no-cache"),
            ("/channels/scores/messages.json", "application/json", "no-cache"),
            ("/channels/cam/thumbnail.jpg", "image/jpeg", "public, max-age=2"),
            ("/health", "application/json", "no-store"),
        ]
        for (path, type, cache) in expectations {
            let reply = try Self.get(fed, path)
            #expect(reply.status == 200, "\(path)")
            #expect(reply.headers["content-type"] == type, "\(path): \(reply.headers)")
            #expect(reply.headers["cache-control"] == cache, "\(path): \(reply.headers)")
            #expect(reply.headers["etag"] != nil, "\(path)")
            #expect(reply.headers["access-control-allow-origin"] == "*", "\(path)")
        }
        // The thumbnail refreshes every few seconds, so on a slow machine (qemu-user) a newer
        // keyframe's picture may replace it between the two requests: then the conditional GET must
        // answer 200 with a different tag, and the pair is tried again.
        var revalidated = false
        for _ in 0..<5 where !revalidated {
            let thumbnail = try Self.get(fed, "/channels/cam/thumbnail.jpg")
            #expect(thumbnail.body.starts(with: [0xFF, 0xD8]))
            let tag = try #require(thumbnail.headers["etag"])
            let again = try Self.get(fed, "/channels/cam/thumbnail.jpg", ["If-None-Match: \(tag)"])
            if again.status == 304 {
                revalidated = true
            } else {
                #expect(again.status == 200 && again.headers["etag"] != tag, "\(again.status) \(again.headers)")
            }
        }
        #expect(revalidated, "If-None-Match with the current tag never answered 304")
        let events = try Self.get(fed, "/channels/scores/events", [], method: "HEAD")
        #expect(events.status == 200)
        #expect(events.headers["content-type"] == "text/event-stream")
        let list = try JSONParser.parse(try Self.get(fed, "/channels.json").body)
        guard case .array(let channels) = list else { Issue.record("not a list"); return }
        #expect(channels.contains { $0["events"] == .string("/channels/scores/events") })

        // Errors are never cached; OPTIONS answers a CORS preflight; other methods 405.
        for path in ["/nope", "/channels/cam/seg999.ts", "/channels/none/live.m3u8", "/channels/cam/rewind.m3u8"] {
            let reply = try Self.get(fed, path)
            #expect((400..<500).contains(reply.status), "\(path)")
            #expect(reply.headers["cache-control"] == "no-store", "\(path)")
            #expect(reply.headers["access-control-allow-origin"] == "*", "\(path)")
        }
        let preflight = try Self.get(fed, "/channels/cam/seg1.ts", ["Origin: http://app.example", "Access-Control-Request-Headers: range"],
                                     method: "OPTIONS")
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Range") == true)
        #expect(preflight.headers["access-control-allow-origin"] == "*")
        let post = try Self.get(fed, "/channels.json", [], method: "DELETE")
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD, OPTIONS")
    }

    /// curl as a real client: `-r` ranges, `-I` HEAD, `--etag-compare` conditionals.
    @Test func curlSeesRangesHeadAndConditionals() throws {
        let fed = try ServingTests.Fed()
        defer { fed.daemon.stop() }
        fed.feed { fed.playlist("live-ts.m3u8").contains("seg2.ts") }
        let base = "http://127.0.0.1:\(fed.port)/channels/cam/"
        let range = try runCommand(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-r", "188-375", base + "seg0.ts"])
        #expect(range == "206 188")
        let head = try runCommand(["curl", "-s", "-I", base + "live.m3u8"]).lowercased()
        #expect(head.hasPrefix("http/1.1 200"))
        #expect(head.contains("content-type: application/vnd.apple.mpegurl"))
        #expect(head.contains("etag: \"h"))
        let tags = FileManager.default.temporaryDirectory.appendingPathComponent("gs-etag-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: tags) }
        _ = try runCommand(["curl", "-s", "-o", "/dev/null", "--etag-save", tags, base + "seg0.ts"])
        let again = try runCommand(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--etag-compare", tags, base + "seg0.ts"])
        #expect(again == "304")
    }
}
