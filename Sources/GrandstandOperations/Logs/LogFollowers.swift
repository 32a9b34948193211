import GrandstandCore
import GrandstandRuntime
import Synchronization
import HTTPServer
import Systemd

/// `GET /api/v1/logs?follow=1`: the query's entries, then each new one as journald writes it,
/// as Server-Sent Events (`id:` the journal cursor, `data:` the JSON line). `Last-Event-ID`
/// resumes right after that entry. One thread per follower (`logs-N`, joined by the group), at
/// most `maximum` at once; a follower ends when its client leaves or the daemon stops.
public final class LogFollowers: Sendable {
    let maximum: Int
    private let active = Mutex<[ObjectIdentifier: HTTPStream]>([:])
    private let threads: ServiceGroup

    /// `threadName` prefixes the follower threads' names (`logs-1`, `logs-2`, …).
    public init(maximum: Int = 8, threadName: String = "logs") {
        self.maximum = maximum
        threads = ServiceGroup(name: threadName)
    }

    public func start(_ query: LogQuery, lastEventID: String?) -> HTTPResponse {
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
        let admitted = active.withLock { active -> Bool in
            guard !threads.stopSignal.isRaised, active.count < maximum else { return false }
            active[ObjectIdentifier(stream)] = stream
            return true
        }
        guard admitted else { return .text(503, "too many log followers (at most \(maximum)); try again later") }
        let box = ReaderBox(reader)
        do {
            try threads.start { [self] stop in
                if let reader = box.take() { follow(reader, query: query, lastEventID: lastEventID, into: stream, stop: stop) }
                _ = active.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
                stream.finish()
            }
        } catch {
            _ = active.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
            return .text(503, "cannot follow the journal: \(error)")
        }
        return .stream(stream, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])
    }

    /// Follower threads started and not yet joined (the leak test's measure).
    var unjoinedThreads: Int { threads.unjoined }

    /// Joins the followers that have ended (their clients left).
    func reap() { threads.reap() }

    /// Ends every follower (daemon stop) and joins their threads: each sees it within its
    /// journal wait (at most a second).
    public func stopAll() {
        threads.stopSignal.raise()
        for stream in active.withLock({ Array($0.values) }) { stream.finish() }
        threads.stop()
    }

    private func follow(_ reader: JournalReader, query: LogQuery, lastEventID: String?, into stream: HTTPStream, stop: StopSignal) {
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
            while stream.isOpen, !stop.isRaised {
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

/// Hands the journal reader (not Sendable: one handle, one thread) to the follower's thread:
/// it goes in disconnected (`sending`, checked by the compiler) and the thread takes it out.
private final class ReaderBox: Sendable {
    private let slot: Mutex<JournalReader?>
    init(_ reader: sending JournalReader) { slot = Mutex(reader) }

    /// The reader, once (nil after).
    func take() -> JournalReader? { slot.withLock { reader in let taken = reader; reader = nil; return taken } }
}
