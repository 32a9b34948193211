import Foundation
import GrandstandCore
import HTTPClient
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandOperations

/// `GET /api/v1/events`: gateway events (health transitions, channels added/removed) as
/// Server-Sent Events on the management listener (docs/management.md).
@Suite(.serialized) struct ManagementEventsTests {
    /// Follows `target` on a thread until `until` holds for what arrived (or the stream ends).
    static func follow(_ daemon: Daemon, _ target: String, headers: [(String, String)] = [],
                       until: @escaping @Sendable ([ServerSentEvent]) -> Bool) throws -> ReceivedEvents {
        let port = try #require(daemon.status?.management.port)
        let client = HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port))
        let received = ReceivedEvents()
        let thread = Thread {
            var parser = ServerSentEventParser()
            let response = try? client.stream(target, headers: [("Authorization", "Bearer secret")] + headers) { bytes in
                received.append(parser.feed(bytes))
                return !until(received.events)
            }
            received.finish(status: response?.status)
        }
        thread.start()
        return received
    }

    static func data(_ event: ServerSentEvent) -> JSONValue { (try? JSONParser.parse(Array(event.data.utf8))) ?? .null }

    @Test func streamsTheStateThenChannelAndHealthEventsUntilStop() throws {
        let daemon = Daemon(config: try DaemonTests.config(), board: nil)
        try daemon.start()
        var stopped = false
        defer { if !stopped { daemon.stop() } }
        let received = try Self.follow(daemon, "/api/v1/events") { _ in false }
        try waitFor("the status event", timeout: 20) { received.count >= 1 }
        let first = try #require(received.events.first)
        #expect(first.event == "status")
        #expect(Self.data(first)["service"]?["state"] == .string("down"))

        daemon.events.record(GatewayEvent(.channelAdded, "channel bowl added", fields: [("CHANNEL", "bowl")]))
        daemon.events.record(GatewayEvent(.channelRemoved, "channel bowl removed (expired)", fields: [("CHANNEL", "bowl")]))
        try waitFor("the channel events", timeout: 20) { received.events.contains { $0.event == "channel-removed" } }
        let channelEvents = received.events.filter { $0.event?.hasPrefix("channel-") == true }
        #expect(channelEvents.map(\.event) == ["channel-added", "channel-removed"])
        let added = Self.data(channelEvents[0])
        #expect(added["kind"] == .string("channel-added"))
        #expect(added["messageId"] == .string(GatewayEvent.Kind.channelAdded.messageID))
        #expect(added["fields"]?["CHANNEL"] == .string("bowl"))
        #expect(added["message"] == .string("channel bowl added"))
        #expect(added["id"] == channelEvents[0].id.map(JSONValue.string))

        // Stopping is a health transition (to not-running, once it has run): it arrives, then the stream ends.
        try waitFor("the first evaluation as running", timeout: 30) {
            let status = try JSONParser.parse(Array(try DaemonHealthTests.call(daemon, "GET", "/api/v1/status").body.utf8))
            return IngestStats.int(status["service"]?["reasonsBitmap"]).map { $0 & 8 == 0 } ?? false
        }
        daemon.stop()
        stopped = true
        try waitFor("the stream to end", timeout: 20) { received.status == 200 }
        let down = received.events.filter { $0.event == "service-down" }.map(Self.data)
        let reasons = down.compactMap { event -> String? in
            if case .string(let text)? = event["fields"]?["REASONS"] { return text }
            return nil
        }
        #expect(reasons.contains { $0.contains("not-running") }, "\(received.events)")
    }

    @Test func kindsFilterAndLastEventIDResume() throws {
        let daemon = Daemon(config: try DaemonTests.config(), board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let port = try #require(daemon.status?.management.port)
        let bad = try HTTPClient(HTTPEndpoint(host: "127.0.0.1", port: port))
            .request("GET", "/api/v1/events?kinds=channel-added,bogus", headers: [("Authorization", "Bearer secret")], body: [])
        #expect(bad.status == 400)
        #expect(bad.text.contains("\"bogus\" is not an event kind"))

        let removedOnly = try Self.follow(daemon, "/api/v1/events?kinds=channel-removed") { events in
            events.contains { $0.event == "channel-removed" }
        }
        try waitFor("the status event", timeout: 20) { removedOnly.count >= 1 }
        daemon.events.record(GatewayEvent(.channelAdded, "channel a added", fields: [("CHANNEL", "a")]))
        daemon.events.record(GatewayEvent(.channelRemoved, "channel a removed", fields: [("CHANNEL", "a")]))
        try waitFor("the filtered stream", timeout: 20) { removedOnly.status == 200 }
        #expect(removedOnly.events.map(\.event) == ["status", "channel-removed"])

        // Resume after the removal's id: only what came later (from the backlog) follows.
        let lastID = try #require(removedOnly.events.last?.id)
        daemon.events.record(GatewayEvent(.channelAdded, "channel b added", fields: [("CHANNEL", "b")]))
        let resumed = try Self.follow(daemon, "/api/v1/events?kinds=channel-added", headers: [("Last-Event-ID", lastID)]) { events in
            events.contains { $0.event == "channel-added" }
        }
        try waitFor("the resumed stream", timeout: 20) { resumed.status == 200 }
        let replayed = resumed.events.filter { $0.event == "channel-added" }.map { Self.data($0)["fields"]?["CHANNEL"] }
        #expect(replayed == [.string("b")])
    }

    @Test func hubBoundsItsClientsAndBacklog() throws {
        let hub = EventHub(maximum: 2, backlog: 3)
        let a = try #require(hub.subscribe(kinds: nil, lastEventID: nil, first: nil))
        _ = try #require(hub.subscribe(kinds: nil, lastEventID: nil, first: nil))
        #expect(hub.subscribe(kinds: nil, lastEventID: nil, first: nil) == nil)
        a.finish()
        for n in 1...5 { hub.publish(GatewayEvent(.reloaded, "r\(n)"), realtimeMicroseconds: Int64(n)) }
        #expect(hub.count == 1)
        hub.finishAll()
        #expect(hub.count == 0)
        // An id from another daemon run replays the whole (bounded) backlog.
        let late = try #require(hub.subscribe(kinds: nil, lastEventID: "0.1", first: nil))
        #expect(late.isOpen)
        #expect(hub.session.count == 8)
    }
}
