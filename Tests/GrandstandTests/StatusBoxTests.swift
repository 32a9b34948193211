import Foundation
import Testing
import HTTPServer
import Synchronization
@testable import GrandstandDaemon

/// The daemon's handler box answers every request through the same call depth. It once wrapped
/// the installed handler in two more re-abstraction thunks per request (closures in a tuple in a
/// Mutex's generic value), so the fan thread's stack overflowed after ~20,000 requests.
struct StatusBoxTests {
    @Test func callDepthStaysTheSameOverManyRequests() {
        let box = StatusBox()
        let depths = Mutex<[Int]>([])
        let handler: HTTPDeferringHandler = { _, _ in
            let depth = Thread.callStackReturnAddresses.count
            depths.withLock { $0.append(depth) }
            return HTTPResponse(status: 204)
        }
        #expect(box.fan(HTTPRequest(method: "GET", path: "/"), HTTPResponder { _ in })?.status == 503)
        box.install(fan: handler, management: handler)
        let responder = HTTPResponder { _ in }
        for _ in 0..<5_000 {
            _ = box.fan(HTTPRequest(method: "GET", path: "/"), responder)
            _ = box.management(HTTPRequest(method: "GET", path: "/api"), responder)
        }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 10_000)
        #expect(Set(seen).count == 1, "call depth grew from \(seen.first ?? 0) to \(seen.last ?? 0)")
    }
}
