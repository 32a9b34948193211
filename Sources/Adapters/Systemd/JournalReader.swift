import CGSSystemd
#if canImport(Glibc)
import Glibc
#endif

/// Reads entries back from the local journal (sd-journal(3)): what `grandstand logs` and the
/// management API's log view use, and how tests prove an entry really landed with its fields.
public final class JournalReader {
    private var handle: OpaquePointer?

    /// Opens the local journal files (system and, when permitted, user journals).
    public init() throws(SystemdError) {
        var journal: OpaquePointer?
        try SystemdError.check(sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY)), "sd_journal_open")
        handle = journal
    }

    deinit { sd_journal_close(handle) }

    /// Restricts reading to entries with `NAME=value`; matches on different fields are ANDed.
    public func addMatch(_ name: String, _ value: String) throws(SystemdError) {
        let match = Array("\(name)=\(value)".utf8)
        try SystemdError.check(match.withUnsafeBytes { sd_journal_add_match(handle, $0.baseAddress, $0.count) },
                               "sd_journal_add_match \(name)")
    }

    /// Starts a new group of matches ORed with the ones before (sd_journal_add_disjunction).
    public func addDisjunction() throws(SystemdError) {
        try SystemdError.check(sd_journal_add_disjunction(handle), "sd_journal_add_disjunction")
    }

    /// Removes every match.
    public func flushMatches() {
        sd_journal_flush_matches(handle)
    }

    /// Positions before the first entry at or after `realtimeMicroseconds` (wall clock): `next`
    /// returns that entry, `previous` the one before it.
    public func seek(realtimeMicroseconds: UInt64) throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_realtime_usec(handle, realtimeMicroseconds), "sd_journal_seek_realtime_usec")
    }

    /// Positions at the entry with `cursor` (from `JournalEntry.cursor`); `next` returns it.
    public func seek(cursor: String) throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_cursor(handle, cursor), "sd_journal_seek_cursor")
    }

    public func seekHead() throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_head(handle), "sd_journal_seek_head")
    }

    public func seekTail() throws(SystemdError) {
        try SystemdError.check(sd_journal_seek_tail(handle), "sd_journal_seek_tail")
    }

    /// Moves to the next entry and returns its fields, or nil at the end.
    public func next() throws(SystemdError) -> JournalEntry? {
        guard try SystemdError.check(sd_journal_next(handle), "sd_journal_next") > 0 else { return nil }
        return try currentEntry()
    }

    /// Moves to the previous entry (after `seekTail`, the newest) and returns it.
    public func previous() throws(SystemdError) -> JournalEntry? {
        guard try SystemdError.check(sd_journal_previous(handle), "sd_journal_previous") > 0 else { return nil }
        return try currentEntry()
    }

    /// Blocks up to `timeoutMicroseconds` for new entries; true when the journal changed.
    public func wait(timeoutMicroseconds: UInt64) throws(SystemdError) -> Bool {
        try SystemdError.check(sd_journal_wait(handle, timeoutMicroseconds), "sd_journal_wait") != SD_JOURNAL_NOP
    }

    private func currentEntry() throws(SystemdError) -> JournalEntry {
        var realtime: UInt64 = 0
        try SystemdError.check(sd_journal_get_realtime_usec(handle, &realtime), "sd_journal_get_realtime_usec")
        var fields: [String: [UInt8]] = [:]
        sd_journal_restart_data(handle)
        var data: UnsafeRawPointer?
        var length = 0
        while try SystemdError.check(sd_journal_enumerate_data(handle, &data, &length), "sd_journal_enumerate_data") > 0 {
            guard let data else { continue }
            let bytes = UnsafeRawBufferPointer(start: data, count: length)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: bytes[..<equals], as: UTF8.self)
            fields[name] = Array(bytes[(equals + 1)...])
        }
        var cursor: UnsafeMutablePointer<CChar>?
        try SystemdError.check(sd_journal_get_cursor(handle, &cursor), "sd_journal_get_cursor")
        defer { free(cursor) }
        return JournalEntry(realtimeMicroseconds: realtime, cursor: cursor.map { String(cString: $0) } ?? "", fields: fields)
    }
}

/// One journal entry as read back: its wall-clock time and every field, trusted ones included.
public struct JournalEntry: Sendable, Equatable {
    public let realtimeMicroseconds: UInt64
    /// Names this entry's position for `JournalReader.seek(cursor:)` (e.g. resuming a follow).
    public let cursor: String
    public let fields: [String: [UInt8]]

    public init(realtimeMicroseconds: UInt64, cursor: String = "", fields: [String: [UInt8]]) {
        self.realtimeMicroseconds = realtimeMicroseconds
        self.cursor = cursor
        self.fields = fields
    }

    /// Every field as text (invalid UTF-8 replaced), for rendering.
    public var textFields: [String: String] { fields.mapValues { String(decoding: $0, as: UTF8.self) } }

    public subscript(_ name: String) -> String? {
        fields[name].map { String(decoding: $0, as: UTF8.self) }
    }
}
