/// One journal entry as the logs API sends it: a JSON object per line with journalctl's field
/// names (`__REALTIME_TIMESTAMP` in microseconds as a string, `MESSAGE`, `PRIORITY`, `MESSAGE_ID`,
/// `GRANDSTAND_*`, trusted `_PID`…), plus `time` in RFC 3339 for people; and the one-line human
/// form `grandstand logs` prints.
public struct LogRecord: Sendable, Equatable {
    public var realtimeMicroseconds: UInt64
    /// The journal's name for the entry's position (`__CURSOR`), when read from the journal.
    public var cursor: String?
    public var fields: [String: String]

    public init(realtimeMicroseconds: UInt64, cursor: String? = nil, fields: [String: String]) {
        self.realtimeMicroseconds = realtimeMicroseconds
        self.cursor = cursor
        self.fields = fields
    }

    /// Fields not worth shipping: large or internal to journald.
    static let omitted: Set<String> = ["_SOURCE_REALTIME_TIMESTAMP", "_CAP_EFFECTIVE", "_SELINUX_CONTEXT", "_STREAM_ID"]

    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("time", .string(LogTime.format(microseconds: realtimeMicroseconds))),
            ("__REALTIME_TIMESTAMP", .string(String(realtimeMicroseconds))),
        ]
        if let cursor { members.append(("__CURSOR", .string(cursor))) }
        for name in fields.keys.sorted() where !Self.omitted.contains(name) && !name.hasPrefix("__") {
            members.append((name, .string(fields[name] ?? "")))
        }
        return .object(members)
    }

    /// Reads a line the API sent back; nil when it is not such an object.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, case .string(let stamp)? = json["__REALTIME_TIMESTAMP"],
              let micros = UInt64(stamp) else { return nil }
        var fields: [String: String] = [:]
        for (name, value) in members where name != "time" && !name.hasPrefix("__") {
            if case .string(let text) = value { fields[name] = text }
        }
        var cursor: String?
        if case .string(let text)? = json["__CURSOR"] { cursor = text }
        self.init(realtimeMicroseconds: micros, cursor: cursor, fields: fields)
    }

    /// `2026-11-21T06:20:00.123456Z notice channel-added[CHANNEL=bowl-cam]: message`.
    public var line: String {
        let level = fields["PRIORITY"].flatMap { Int($0) }.flatMap(LogLevel.init(rawValue:))?.name ?? "-"
        var tag = fields["GRANDSTAND_EVENT"] ?? fields["SYSLOG_IDENTIFIER"] ?? "-"
        if let channel = fields["GRANDSTAND_CHANNEL"] { tag += "[\(channel)]" }
        let message = (fields["MESSAGE"] ?? "").split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ⏎ ")
        return "\(LogTime.format(microseconds: realtimeMicroseconds)) \(level) \(tag): \(message)"
    }
}
