/// A random (version 4, RFC 9562) UUID in its lowercase text form: the device, app-session and
/// video-session ids of reports. The caller supplies the 16 random bytes (the core has no I/O).
public struct ReportUUID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Sets the version (4) and variant (10xx) bits of 16 random bytes; nil unless exactly 16.
    public init?(random: [UInt8]) {
        guard random.count == 16 else { return nil }
        var bytes = random
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        self.bytes = bytes
    }

    /// From two random 64-bit draws (big-endian), version and variant bits set.
    public init(randomHigh high: UInt64, low: UInt64) {
        var bytes: [UInt8] = []
        for word in [high, low] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        self.bytes = bytes
    }

    /// Parses "8-4-4-4-12" hex (any case, surrounding whitespace ignored); nil otherwise.
    public init?(_ text: String) {
        let trimmed = text.filter { !$0.isWhitespace }
        let groups = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = Array(groups.joined().utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < hex.count {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
            index += 2
        }
        self.bytes = bytes
    }

    public var description: String {
        let hex = bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}

/// A video session per channel: a new UUID when a channel appears (or comes back after it was
/// gone from a report), kept while it stays. `newUUID` is called once per new session.
public struct VideoSessions: Sendable {
    public private(set) var current: [String: ReportUUID] = [:]

    public init() {}

    /// Updates the sessions for the channels present now and returns them.
    public mutating func update(channels: [String], newUUID: () -> ReportUUID) -> [String: ReportUUID] {
        var next: [String: ReportUUID] = [:]
        for id in channels { next[id] = current[id] ?? newUUID() }
        current = next
        return next
    }
}
