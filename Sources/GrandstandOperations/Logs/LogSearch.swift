import GrandstandCore
import Systemd

/// Runs a `LogQuery` against the local journal (sd-journal): the daemon's own entries
/// (`SYSLOG_IDENTIFIER=grandstand`), filtered, oldest first. With `since`, the first `limit`
/// entries from then on; otherwise the last `limit` entries up to `until` (or now).
public enum LogSearch {
    public static func run(_ query: LogQuery) throws(SystemdError) -> [LogRecord] {
        let reader = try JournalReader()
        for match in query.matches {
            for value in match.values { try reader.addMatch(match.name, value) }
        }
        var records: [LogRecord] = []
        if let since = query.sinceMicroseconds {
            try reader.seek(realtimeMicroseconds: since)
            while records.count < query.limit, let entry = try reader.next() {
                if let until = query.untilMicroseconds, entry.realtimeMicroseconds > until { break }
                records.append(entry.record)
            }
            return records
        }
        if let until = query.untilMicroseconds {
            try reader.seek(realtimeMicroseconds: until &+ 1)
        } else {
            try reader.seekTail()
        }
        while records.count < query.limit, let entry = try reader.previous() {
            if let until = query.untilMicroseconds, entry.realtimeMicroseconds > until { continue }
            records.append(entry.record)
        }
        return records.reversed()
    }
}

extension JournalEntry {
    /// The entry as the logs API renders it.
    var record: LogRecord {
        LogRecord(realtimeMicroseconds: realtimeMicroseconds, cursor: cursor.isEmpty ? nil : cursor, fields: textFields)
    }
}
