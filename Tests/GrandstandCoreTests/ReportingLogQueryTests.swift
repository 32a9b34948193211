import Testing
@testable import GrandstandCore

struct ReportingLogQueryTests {
    static let now: UInt64 = 1_767_225_600_000_000 // 2026-01-01T00:00:00Z

    @Test(arguments: [
        ("1767225600", UInt64(1_767_225_600_000_000)), ("2026-01-01T00:00:00Z", UInt64(1_767_225_600_000_000)),
        ("2026-01-01 00:00:01.5Z", UInt64(1_767_225_601_500_000)), ("2024-02-29T12:34:56.000001Z", UInt64(1_709_210_096_000_001)),
        ("-30s", UInt64(1_767_225_570_000_000)), ("-15m", UInt64(1_767_224_700_000_000)), ("-2h", UInt64(1_767_218_400_000_000)),
        ("-1d", UInt64(1_767_139_200_000_000)), ("now", UInt64(1_767_225_600_000_000)),
    ])
    func timesParse(text: String, micros: UInt64) {
        #expect(LogTime.parse(text, nowMicroseconds: Self.now) == micros)
    }

    @Test(arguments: ["", "yesterday", "-5y", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00+01:00", "-s"])
    func badTimesAreRejected(text: String) {
        #expect(LogTime.parse(text, nowMicroseconds: Self.now) == nil)
    }

    @Test(arguments: [UInt64(0), 1_709_210_096_000_001, 1_767_225_600_000_000, 4_102_444_799_999_999])
    func formatRoundTrips(micros: UInt64) {
        let text = LogTime.format(microseconds: micros)
        #expect(LogTime.parse(text, nowMicroseconds: 0) == micros, "\(text)")
    }

    @Test func formatIsRFC3339() {
        #expect(LogTime.format(microseconds: 1_709_210_096_000_001) == "2024-02-29T12:34:56.000001Z")
    }

    @Test func fullQueryParses() throws {
        let result = LogQuery.parse(["since": "-1h", "until": "now", "priority": "warning", "channel": "bowl-cam",
                                     "messageId": "27219F69265740D896896ACD9489E1FC", "limit": "5", "follow": "1"],
                                    nowMicroseconds: Self.now)
        let query = try result.get()
        #expect(query.sinceMicroseconds == Self.now - 3_600_000_000)
        #expect(query.untilMicroseconds == Self.now)
        #expect(query.priority == .warning)
        #expect(query.messageID == "27219f69265740d896896acd9489e1fc")
        #expect(query.limit == 5 && query.follow)
        #expect(query.matches.map(\.name) == ["SYSLOG_IDENTIFIER", "PRIORITY", "GRANDSTAND_CHANNEL", "MESSAGE_ID"])
        #expect(query.matches[1].values == ["0", "1", "2", "3", "4"])
    }

    @Test func defaultsAreTheLastHundredOfOurOwn() throws {
        let query = try LogQuery.parse([:], nowMicroseconds: Self.now).get()
        #expect(query.limit == 100 && !query.follow && query.sinceMicroseconds == nil && query.priority == nil)
        #expect(query.matches.map(\.name) == ["SYSLOG_IDENTIFIER"])
    }

    @Test func everyBadArgumentIsReported() {
        let result = LogQuery.parse(["since": "soon", "priority": "loud", "messageId": "xyz", "limit": "0", "follow": "maybe",
                                     "colour": "red"], nowMicroseconds: Self.now)
        guard case .failure(let error) = result else {
            Issue.record("accepted")
            return
        }
        #expect(error.problems.map { String($0.prefix { $0 != ":" }) } == ["colour", "since", "priority", "messageId", "limit", "follow"])
    }

    @Test func untilBeforeSinceIsRejected() {
        let result = LogQuery.parse(["since": "-1m", "until": "-1h"], nowMicroseconds: Self.now)
        #expect(result == .failure(LogQueryError(problems: ["until: is before since"])))
    }

    @Test func recordsRoundTripThroughJSON() throws {
        let record = LogRecord(realtimeMicroseconds: 1_767_225_600_123_456, cursor: "s=1;i=2", fields: [
            "MESSAGE": "channel added\nsecond line", "PRIORITY": "5", "GRANDSTAND_EVENT": "channel-added",
            "GRANDSTAND_CHANNEL": "bowl-cam", "_PID": "42", "__CURSOR": "s=…", "_STREAM_ID": "x",
        ])
        let json = record.json
        #expect(json["time"] == .string("2026-01-01T00:00:00.123456Z"))
        #expect(json["__REALTIME_TIMESTAMP"] == .string("1767225600123456"))
        #expect(json["__CURSOR"] == .string("s=1;i=2") && json["_STREAM_ID"] == nil)
        let back = try #require(LogRecord(json: try JSONParser.parse(Array(json.encoded.utf8))))
        #expect(back.realtimeMicroseconds == record.realtimeMicroseconds && back.cursor == "s=1;i=2")
        #expect(back.fields["__CURSOR"] == nil)
        #expect(back.fields["GRANDSTAND_CHANNEL"] == "bowl-cam" && back.fields["_PID"] == "42")
        #expect(back.line == "2026-01-01T00:00:00.123456Z notice channel-added[bowl-cam]: channel added ⏎ second line")
    }

    @Test func serverSentEventsRoundTripInAnyChunking() {
        let events = [ServerSentEvent(id: "s=1;i=a", data: #"{"MESSAGE":"one"}"#),
                      ServerSentEvent(event: "gap", data: "two\nlines"), ServerSentEvent(data: "")]
        let wire = Array((": keepalive\n\n" + events.map(\.encoded).joined()).utf8)
        #expect(events[1].encoded == "event: gap\ndata: two\ndata: lines\n\n")
        for size in [1, 2, 7, wire.count] {
            var parser = ServerSentEventParser()
            var parsed: [ServerSentEvent] = []
            var index = 0
            while index < wire.count {
                parsed += parser.feed(wire[index..<min(index + size, wire.count)])
                index += size
            }
            // The id persists to later events (last event ID), as the spec says.
            #expect(parsed == [events[0], ServerSentEvent(id: "s=1;i=a", event: "gap", data: "two\nlines"),
                               ServerSentEvent(id: "s=1;i=a", data: "")], "chunk size \(size)")
        }
        var crlf = ServerSentEventParser()
        #expect(crlf.feed(Array("data:x\r\nid:7\r\n\r\n".utf8)) == [ServerSentEvent(id: "7", data: "x")])
    }
}
