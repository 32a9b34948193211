import GrandstandCore
import Systemd
#if canImport(Glibc)
import Glibc
#endif

/// Writes gateway events to journald with their structured fields; when no journald listens
/// (a developer's shell), prints them to stderr instead so nothing is lost.
struct EventLog: Sendable {
    let writer = JournalWriter()
    /// Diagnostics run by hand (`listen`) report to the terminal only, not the box's journal.
    var stderrOnly = false

    func record(_ event: GatewayEvent) {
        do {
            if stderrOnly { throw SystemdError("journal disabled", errno: 0) }
            try writer.send(event.journalFields.map { JournalField($0.name, $0.value) })
        } catch {
            let extras = event.fields.map { " \($0.name)=\($0.value)" }.joined()
            printError("grandstand: \(event.kind.rawValue): \(event.message)\(extras)")
        }
    }
}

/// Writes one line to standard error (fd 2 directly: the C `stderr` global is not
/// concurrency-safe in Swift 6).
func printError(_ line: String) {
    let bytes = Array((line.hasSuffix("\n") ? line : line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
