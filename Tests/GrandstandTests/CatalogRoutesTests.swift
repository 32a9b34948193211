import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// Catalog search over HTTP on an in-process daemon reading the generated feed from a file:
/// the fan routes, the same engine on management, 400s naming the problem, the file-channel hook.
struct CatalogRoutesTests {
    static func running() throws -> (ManagementAPITests.Running, HTTPClient) {
        let running = try ManagementAPITests.Running(extra: #","catalog":{"feedPath":"\#(Fixtures.path("catalog/feed.json"))","refreshSeconds":5}"#)
        let port = try #require(running.daemon.status?.fan.port)
        return (running, HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port)))
    }

    static func json(_ response: HTTPClientResponse) throws -> JSONValue {
        try JSONParser.parse(response.body)
    }

    @Test func fanSearchPagesTheFeed() throws {
        let (running, fan) = try Self.running()
        defer { withExtendedLifetime(running) {} }
        let first = try fan.get("/catalog?q=name:like:derby&q1=season:%3E%3D:2025&sort=-startDate&limit=10")
        #expect(first.status == 200)
        let page = try Self.json(first)
        #expect(page["total"] == .number(16) && page["limit"] == .number(10) && page["offset"] == .number(0))
        guard case .array(let items)? = page["items"] else { Issue.record("no items"); return }
        #expect(items.count == 10)
        #expect(items.allSatisfy { $0["competition"] == .string("Derby Cup") && $0["isLive"] == .bool(false) })
        let second = try Self.json(try fan.get("/catalog?q=name:like:derby&q1=season:%3E%3D:2025&sort=-startDate&limit=10&offset=10"))
        guard case .array(let rest)? = second["items"] else { Issue.record("no items"); return }
        #expect(rest.count == 6)
        let defaults = try Self.json(try fan.get("/catalog"))
        #expect(defaults["total"] == .number(120) && defaults["limit"] == .number(20))
    }

    @Test func unknownFieldsAndOperatorsAre400s() throws {
        let (running, fan) = try Self.running()
        defer { withExtendedLifetime(running) {} }
        let field = try fan.get("/catalog?q=colour:equals:red")
        #expect(field.status == 400)
        let fieldName = try Self.json(field)["name"]
        #expect(fieldName == .string("colour"))
        let op = try fan.get("/catalog?q=name:contains:x")
        #expect(op.status == 400)
        let opName = try Self.json(op)["name"]
        #expect(opName == .string("contains"))
        let parameter = try fan.get("/catalog?page=2")
        #expect(parameter.status == 400)
        #expect(parameter.text.contains("unknown parameter \\\"page\\\""))
    }

    @Test func batchOnBothListeners() throws {
        let (running, fan) = try Self.running()
        defer { withExtendedLifetime(running) {} }
        let get = try fan.get("/catalog/batch?query1=q%3Dfeatured%3AisTrue%26limit%3D3&query2=q%3Dtype%3Aequals%3Aconcert")
        #expect(get.status == 200)
        guard case .array(let results)? = try Self.json(get)["results"] else { Issue.record("no results"); return }
        #expect(results.map { $0["total"] } == [.number(12), .number(8)])
        let post = try running.call("POST", "/api/v1/catalog/batch", body: #"["q=stadium:equals:Harbour Park&limit=1","q=nope:isTrue"]"#)
        #expect(post.status == 400)
        let failedIndex = try Self.json(post)["query"]
        #expect(failedIndex == .number(1))
        // The fan listener answers GET only here (POST is for /items alone).
        let fanPost = try fan.request("POST", "/catalog/batch", body: Array("[]".utf8))
        #expect([405, 413].contains(fanPost.status))
    }

    @Test func managementSharesTheEngineAndShowsTheFeed() throws {
        let (running, fan) = try Self.running()
        let viaFan = try fan.get("/catalog?q=teams:equals:Castle%20Vale&sort=name&limit=50").body
        let viaManagement = try running.call("GET", "/api/v1/catalog?q=teams:equals:Castle%20Vale&sort=name&limit=50").body
        #expect(viaFan == viaManagement)
        let status = try Self.json(try running.call("GET", "/api/v1/catalog/status"))
        #expect(status["fixtures"] == .number(120))
        #expect(status["source"] == .string("file:" + Fixtures.path("catalog/feed.json")))
        let anonymous = try running.call("GET", "/api/v1/catalog", token: nil)
        #expect(anonymous.status == 401)
    }

    @Test func livePollAndTheFileChannelHook() throws {
        let (running, fan) = try Self.running()
        let poll = try Self.json(try fan.get("/catalog/live?ids=lg-2025-001,cup-2025-01,missing"))
        #expect(poll["unknown"] == .array([.string("missing")]))
        guard case .number(let next)? = poll["nextPollSeconds"] else { Issue.record("no interval"); return }
        #expect((10...300).contains(next))
        let noIds = try fan.get("/catalog/live")
        #expect(noIds.status == 400)
        // What the FLUTE receiver calls when a catalog.json arrives.
        let feed = #"{"fixtures":[{"id":"x1","name":"Late Kick-off","startDate":"2026-01-01T20:00:00Z"}]}"#
        let loaded = try running.daemon.services.catalogFeed.update(bytes: Array(feed.utf8), source: "flute:catalog.json")
        #expect(loaded == 1)
        let page = try Self.json(try fan.get("/catalog"))
        #expect(page["total"] == .number(1))
        // A bad upload leaves the catalog as it was.
        let bad = try running.call("PUT", "/api/v1/catalog/feed", body: "[1,")
        #expect(bad.status == 400)
        let after = try Self.json(try fan.get("/catalog"))
        #expect(after["total"] == .number(1))
    }
}
