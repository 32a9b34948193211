#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Systemd

struct JournalTests {
    /// Journald must be running: `make test` starts one on hosts without systemd as PID 1.
    static let journalSocket = "/run/systemd/journal/socket"

    @Test func entryIsWrittenWithItsFieldsAndReadBack() throws {
        try #require(FileManager.default.fileExists(atPath: Self.journalSocket),
                     "no journald at \(Self.journalSocket); run `make test` (starts one) or start systemd-journald")
        let marker = UUID().uuidString
        try JournalWriter().send([
            JournalField("MESSAGE", "grandstand journal test"),
            JournalField("PRIORITY", "6"),
            JournalField("SYSLOG_IDENTIFIER", "grandstand-test"),
            JournalField("GRANDSTAND_TEST_ID", marker),
            JournalField("GRANDSTAND_MULTILINE", "line one\nline two"),
        ])

        let entry = try #require(try waitForEntry(matching: marker), "entry \(marker) never reached the journal")
        #expect(entry["MESSAGE"] == "grandstand journal test")
        #expect(entry["PRIORITY"] == "6")
        #expect(entry["GRANDSTAND_MULTILINE"] == "line one\nline two")
        #expect(entry["_PID"] == String(getpid()))
        #expect(entry.realtimeMicroseconds > 1_600_000_000_000_000)
    }

    @Test func emptyEntryIsRejected() {
        #expect(throws: SystemdError("sd_journal_sendv", errno: EINVAL)) { try JournalWriter().send([]) }
    }

    @Test(arguments: [("GRANDSTAND_EVENT", true), ("MESSAGE_ID", true), ("_PID", false),
                      ("lower", false), ("", false), ("WITH-DASH", false)])
    func fieldNames(name: String, valid: Bool) {
        #expect(JournalField.isValidName(name) == valid)
    }

    @Test func cursorsAndWallClockSeeksFindEntriesAgain() throws {
        try #require(FileManager.default.fileExists(atPath: Self.journalSocket), "no journald; run `make test`")
        let marker = UUID().uuidString
        for text in ["first", "second"] {
            try JournalWriter().send([JournalField("MESSAGE", text), JournalField("GRANDSTAND_TEST_ID", marker)])
            usleep(2000) // distinct timestamps
        }
        let reader = try JournalReader()
        try reader.addMatch("GRANDSTAND_TEST_ID", marker)
        var entries: [JournalEntry] = []
        for _ in 0..<50 where entries.count < 2 {
            try reader.seekHead()
            entries = []
            while let entry = try reader.next() { entries.append(entry) }
            if entries.count < 2 { _ = try reader.wait(timeoutMicroseconds: 100_000) }
        }
        try #require(entries.count == 2, "entries \(marker) never reached the journal")
        #expect(entries.map { $0["MESSAGE"] } == ["first", "second"])
        #expect(entries[0].cursor.hasPrefix("s=") && entries[0].cursor != entries[1].cursor)

        try reader.seek(cursor: entries[0].cursor)
        #expect(try reader.next()?["MESSAGE"] == "first")
        try reader.seek(realtimeMicroseconds: entries[1].realtimeMicroseconds)
        #expect(try reader.next()?["MESSAGE"] == "second")
        try reader.seekTail()
        #expect(try reader.previous()?["MESSAGE"] == "second")
        // OR-ed groups: this marker, or one nobody wrote.
        reader.flushMatches()
        try reader.addMatch("GRANDSTAND_TEST_ID", "nobody-\(marker)")
        try reader.addDisjunction()
        try reader.addMatch("GRANDSTAND_TEST_ID", marker)
        try reader.seekHead()
        #expect(try reader.next()?["MESSAGE"] == "first")
    }

    /// journald writes asynchronously; poll the journal for up to five seconds.
    private func waitForEntry(matching marker: String) throws -> JournalEntry? {
        let reader = try JournalReader()
        try reader.addMatch("GRANDSTAND_TEST_ID", marker)
        for _ in 0..<50 {
            try reader.seekHead()
            if let entry = try reader.next() { return entry }
            _ = try reader.wait(timeoutMicroseconds: 100_000)
        }
        return nil
    }
}
