import GrandstandCore
import GrandstandRuntime
import Synchronization
import Systemd
#if canImport(Glibc)
import Glibc
#endif

/// Writes gateway events to journald with their structured fields; when no journald listens
/// (a developer's shell), prints them to stderr instead so nothing is lost. Events less
/// important than the level (config `logLevel`, `PUT /api/v1/log-level`) are dropped from the
/// journal; `GET /api/v1/events` followers get every event whatever the level.
public struct EventLog: Sendable {
    public let writer = JournalWriter()
    /// The live event stream of the management API, shared by every copy of this log.
    public let hub = EventHub()
    /// Diagnostics run by hand (`listen`) report to the terminal only, not the box's journal.
    public var stderrOnly = false
    /// Shared by every copy of this log, so a change at run time reaches all of them.
    public let threshold = LogThreshold()

    public var level: LogLevel {
        get { threshold.level }
        nonmutating set { threshold.level = newValue }
    }

    public func record(_ event: GatewayEvent) {
        hub.publish(event, realtimeMicroseconds: SystemClock().wallNanoseconds() / 1000)
        guard threshold.level.admits(priority: event.kind.priority) else { return }
        do {
            if stderrOnly { throw SystemdError("journal disabled", errno: 0) }
            try writer.send(event.journalFields.map { JournalField($0.name, $0.value) })
        } catch {
            let extras = event.fields.map { " \($0.name)=\($0.value)" }.joined()
            printError("grandstand: \(event.kind.rawValue): \(event.message)\(extras)")
        }
    }

    public init(stderrOnly: Bool = false) {
        self.stderrOnly = stderrOnly
    }
}

/// The current log level, readable and settable from any thread.
public final class LogThreshold: Sendable {
    private let value = Mutex(LogLevel.info)

    var level: LogLevel {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// Writes one line to standard error (fd 2 directly: the C `stderr` global is not
/// concurrency-safe in Swift 6).
public func printError(_ line: String) {
    let bytes = Array((line.hasSuffix("\n") ? line : line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
