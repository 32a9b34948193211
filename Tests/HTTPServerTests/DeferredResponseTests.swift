import Foundation
import Testing
import TestSupport
@testable import HTTPServer

/// Deferred answers (blocking playlist reloads): the handler returns nil, the connection is
/// suspended without holding the listener's thread, and `respond` from another thread answers it.
struct DeferredResponseTests {
    /// Holds responders until the test releases them.
    final class Held: @unchecked Sendable {
        let lock = NSLock()
        var responders: [HTTPResponder] = []
        func add(_ r: HTTPResponder) { lock.lock(); responders.append(r); lock.unlock() }
        func take() -> [HTTPResponder] { lock.lock(); defer { responders = []; lock.unlock() }; return responders }
        var count: Int { lock.lock(); defer { lock.unlock() }; return responders.count }
    }

    @Test func aSuspendedRequestDoesNotBlockOthersAndIsAnsweredLater() throws {
        let held = Held()
        let server = try EventLoopServer(HTTPListenerConfiguration(host: "127.0.0.1", port: 0), deferring: { request, responder in
            switch request.path {
            case "/wait": held.add(responder); return nil
            case "/now-and-later":
                // Answered before the adapter suspends: it must be sent at once, and only once.
                responder.respond(.text(200, "early"))
                responder.respond(.text(500, "second answer ignored"))
                return nil
            default: return .text(200, "immediate")
            }
        })
        defer { server.stop() }

        let started = Date()
        let waiting = Thread.detachNewThreadResult { try? RawHTTPClient(port: server.port).get("/wait") }
        try waitFor("the listener to hold /wait") { held.count > 0 }
        #expect(held.count == 1)
        // The listener's one thread still answers other requests while /wait is held.
        let other = try RawHTTPClient(port: server.port).get("/other")
        #expect(other.text == "immediate\n", "\(other.status) \(other.headers)")
        let early = try RawHTTPClient(port: server.port).get("/now-and-later")
        #expect(early.text == "early\n", "\(early.status) \(early.headers)")
        Thread.sleep(forTimeInterval: 0.2)
        for responder in held.take() {
            responder.respond(HTTPResponse(status: 200, contentType: "application/vnd.apple.mpegurl", body: "#EXTM3U\n"))
            responder.respond(.text(500, "ignored"))
        }
        let answered: RawHTTPClient.Reply?? = waiting.wait()
        guard let reply = answered ?? nil else {
            Issue.record("the held request got no answer")
            return
        }
        #expect(reply.status == 200)
        #expect(reply.text == "#EXTM3U\n")
        #expect(reply.headers["content-type"] == "application/vnd.apple.mpegurl")
        #expect(Date().timeIntervalSince(started) >= 0.2)
    }
}

extension Thread {
    /// Runs `body` on a new thread; `wait()` returns its result.
    final class Result<T>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var finished = false
        var value: T?
        func finish(_ v: T) { lock.lock(); value = v; finished = true; lock.unlock(); done.signal() }
        var isDone: Bool { lock.lock(); defer { lock.unlock() }; return finished }
        func wait() -> T? { done.wait(); return value }
    }

    static func detachNewThreadResult<T>(_ body: @escaping @Sendable () -> T) -> Result<T> {
        let result = Result<T>()
        Thread.detachNewThread { result.finish(body()) }
        return result
    }
}
