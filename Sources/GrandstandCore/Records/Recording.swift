/// A recording as listed, answered and stored in `NAME.json` (docs/records.md): its name and
/// channel, state, times and what is kept (bytes and segments of `NAME.ts`). Pure: the recorder
/// (GrandstandServices/Records) does the files.
public struct Recording: Sendable, Equatable {
    public let name: String
    /// The channel id; empty for a file adopted without metadata (left by an older version).
    public let channel: String
    public var state: RecordState
    public let startedAtNanoseconds: Int64
    public var stoppedAtNanoseconds: Int64?
    public var segments: [VODSegment] = []
    public var bytes = 0
    /// Started by `records.autoRecord` when the channel appeared.
    public var automatic = false

    public init(name: String, channel: String, state: RecordState, startedAt: Int64, automatic: Bool = false) {
        self.name = name
        self.channel = channel
        self.state = state
        startedAtNanoseconds = startedAt
        self.automatic = automatic
    }

    public var durationSeconds: Double { segments.reduce(0) { $0 + $1.durationSeconds } }

    /// Ends a running recording with `state` at `now`; false (and no change) when it had ended.
    @discardableResult
    public mutating func end(_ state: RecordState, at now: Int64) -> Bool {
        guard self.state == .recording, state != .recording else { return false }
        self.state = state
        stoppedAtNanoseconds = now
        return true
    }

    /// Adds a segment appended at the end of the file (`offset` = bytes before it).
    public mutating func append(length: Int, durationSeconds: Double, discontinuity: Bool) {
        segments.append(VODSegment(uri: "\(name).ts", durationSeconds: durationSeconds, byteRange: bytes..<bytes + length,
                                   discontinuity: discontinuity && !segments.isEmpty))
        bytes += length
    }

    // MARK: JSON (answers and the metadata file)

    /// The record as answered and stored; `download`/`playlist` are null while it records.
    public var json: JSONValue {
        let served = state != .recording
        return .object([
            ("name", .string(name)), ("channel", .string(channel)), ("state", .string(state.name)),
            ("reason", state.reason.map { .string($0) } ?? .null),
            ("startedAt", .string(RFC3339.format(nanoseconds: startedAtNanoseconds, fractionDigits: 3))),
            ("stoppedAt", stoppedAtNanoseconds.map { .string(RFC3339.format(nanoseconds: $0, fractionDigits: 3)) } ?? .null),
            ("bytes", .number(Double(bytes))), ("segments", .number(Double(segments.count))),
            ("durationSeconds", .number(durationSeconds)), ("automatic", .bool(automatic)),
            ("download", served ? .string("/records/\(name).ts") : .null),
            ("playlist", served ? .string("/records/\(name).m3u8") : .null),
        ])
    }

    /// A stored record (`NAME.json`) for `name`; nil when it is not one. A record stored while
    /// `recording` comes back `failed: interrupted` (RecordState.loaded); segments and bytes
    /// come from the playlist or the recovery, not from here.
    public static func decode(_ document: JSONValue, name: String) -> Recording? {
        guard case .string(let channel)? = document["channel"], case .string(let stateName)? = document["state"] else { return nil }
        var reason: String?
        if case .string(let why)? = document["reason"] { reason = why }
        func nanoseconds(_ key: String) -> Int64? {
            guard case .string(let text)? = document[key], let date = CatalogDate.parse(text) else { return nil }
            return Int64((date.seconds * 1000).rounded()) * 1_000_000
        }
        var record = Recording(name: name, channel: channel, state: RecordState.loaded(name: stateName, reason: reason),
                               startedAt: nanoseconds("startedAt") ?? 0)
        record.stoppedAtNanoseconds = nanoseconds("stoppedAt")
        if case .bool(let automatic)? = document["automatic"] { record.automatic = automatic }
        if case .number(let size)? = document["bytes"] { record.bytes = Int(size) }
        return record
    }
}
