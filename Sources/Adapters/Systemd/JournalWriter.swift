import CGSSystemd
#if canImport(Glibc)
import Glibc
#endif

/// Writes structured entries to journald over its native protocol (sd_journal_sendv(3)).
/// Field names follow systemd.journal-fields(7): uppercase letters, digits and underscores,
/// not starting with an underscore (those are trusted fields journald adds itself).
public struct JournalWriter: Sendable {
    public init() {}

    /// Sends one entry; `fields` must include MESSAGE. Values may hold any bytes, newlines too.
    public func send(_ fields: [JournalField]) throws(SystemdError) {
        guard !fields.isEmpty else { throw SystemdError("sd_journal_sendv", errno: EINVAL) }
        // One contiguous buffer so every iovec points into memory that outlives the call.
        var storage: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = storage.count
            storage += field.name.utf8
            storage.append(UInt8(ascii: "="))
            storage += field.value
            ranges.append(start..<storage.count)
        }
        let result = storage.withUnsafeMutableBytes { buffer -> Int32 in
            var vectors = ranges.map { iovec(iov_base: buffer.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return sd_journal_sendv(&vectors, Int32(vectors.count))
        }
        try SystemdError.check(result, "sd_journal_sendv")
    }
}

/// One `NAME=value` pair of a journal entry.
public struct JournalField: Sendable, Equatable {
    public let name: String
    public let value: [UInt8]

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = Array(value.utf8)
    }

    public init(_ name: String, bytes: [UInt8]) {
        self.name = name
        self.value = bytes
    }

    /// Whether journald accepts `name` as a caller-supplied field name.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "_"), name.utf8.count <= 64 else { return false }
        return name.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}
