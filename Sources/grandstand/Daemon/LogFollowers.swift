import GrandstandCore
import HTTPServer
import Systemd

/// `GET /api/v1/logs?follow=1`: the query's entries, then each new one as journald writes it,
/// as Server-Sent Events (`id:` the journal cursor, `data:` the JSON line). `Last-Event-ID`
/// resumes right after that entry. One thread per follower, at most `maximum` at once; a
/// follower ends when its client leaves or the daemon stops.
final class LogFollowers: @unchecked Sendable {
    // @unchecked: `active` and `stopping` are only touched under `lock`.
    let maximum: Int
    private let lock = Mutex()
    private var active: [ObjectIdentifier: HTTPStream] = [:]
    private var stopping = false

    init(maximum: Int = 8) { self.maximum = maximum }

    func start(_ query: LogQuery, lastEventID: String?) -> HTTPResponse {
        let reader: JournalReader
        do {
            reader = try JournalReader()
            for match in query.matches {
                for value in match.values { try reader.addMatch(match.name, value) }
            }
        } catch {
            return .text(503, "cannot read the journal: \(error)")
        }
        var limits = HTTPStream.Limits()
        limits.heartbeat = Array(": keepalive\n\n".utf8)
        let stream = HTTPStream(limits: limits)
        let admitted = lock.withLock { () -> Bool in
            guard !stopping, active.count < maximum else { return false }
            active[ObjectIdentifier(stream)] = stream
            return true
        }
        guard admitted else { return .text(503, "too many log followers (at most \(maximum)); try again later") }
        let box = ReaderBox(reader)
        let worker = Worker { [self] in
            follow(box.reader, query: query, lastEventID: lastEventID, into: stream)
            _ = lock.withLock { active.removeValue(forKey: ObjectIdentifier(stream)) }
            stream.finish()
        }
        worker.start()
        return .stream(stream, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
    }

    /// Ends every follower (daemon stop): their threads see it within a second.
    func stopAll() {
        let streams = lock.withLock { () -> [HTTPStream] in
            stopping = true
            return Array(active.values)
        }
        for stream in streams { stream.finish() }
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func follow(_ reader: JournalReader, query: LogQuery, lastEventID: String?, into stream: HTTPStream) {
        func send(_ entry: JournalEntry) -> Bool {
            let record = entry.record
            return stream.send(Array(ServerSentEvent(id: record.cursor, data: record.json.encoded).encoded.utf8))
        }
        do {
            if let lastEventID {
                try reader.seek(cursor: lastEventID)
                _ = try reader.next() // the entry the client already has
            } else if let since = query.sinceMicroseconds {
                try reader.seek(realtimeMicroseconds: since)
            } else {
                // The last `limit` entries first, oldest first, then everything after them.
                try reader.seekTail()
                var backlog: [JournalEntry] = []
                while backlog.count < query.limit, let entry = try reader.previous() { backlog.append(entry) }
                for entry in backlog.reversed() where !send(entry) { return }
                if let newest = backlog.first {
                    try reader.seek(cursor: newest.cursor)
                    _ = try reader.next()
                } else {
                    try reader.seekTail()
                }
            }
            while stream.isOpen, !isStopping {
                while let entry = try reader.next() {
                    if let until = query.untilMicroseconds, entry.realtimeMicroseconds > until { return }
                    guard send(entry) else { return }
                }
                _ = try reader.wait(timeoutMicroseconds: 1_000_000)
            }
        } catch {
            _ = stream.send(Array(ServerSentEvent(event: "error", data: "\(error)").encoded.utf8))
        }
    }
}

/// Hands the journal reader (not Sendable: one handle, one thread) to the follower's thread.
private final class ReaderBox: @unchecked Sendable {
    let reader: JournalReader
    init(_ reader: JournalReader) { self.reader = reader }
}
