import ArgumentParser
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// `grandstand logs`: the daemon's journal entries through the management API
/// (`GET /api/v1/logs`), one line each, or the JSON lines with `--json`.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logs", abstract: "Show the daemon's journal entries.")

    @OptionGroup var management: ManagementOptions

    // `.unconditional`: "-15m" is a value here, not an option.
    @Option(parsing: .unconditional, help: "From this time: Unix seconds, 2026-01-31T18:00:00Z, or -30s/-15m/-2h/-1d.")
    var since: String?

    @Option(parsing: .unconditional, help: "Up to this time (same forms as --since).")
    var until: String?

    @Option(help: "This level and more important: emerg, alert, crit, err, warning, notice, info, debug.")
    var priority: String?

    @Option(help: "Only entries about this channel (GRANDSTAND_CHANNEL).")
    var channel: String?

    @Option(name: .customLong("message-id"), help: "Only entries with this MESSAGE_ID (docs/logging.md).")
    var messageID: String?

    @Option(name: [.customShort("n"), .customLong("lines")], help: "At most this many entries (the newest, unless --since).")
    var limit: Int = 100

    @Flag(name: [.short, .long], help: "Keep printing new entries as they are written (Ctrl-C ends).")
    var follow = false

    var target: String {
        var arguments = [("limit", String(limit))]
        if let since { arguments.append(("since", since)) }
        if let until { arguments.append(("until", until)) }
        if let priority { arguments.append(("priority", priority)) }
        if let channel { arguments.append(("channel", channel)) }
        if let messageID { arguments.append(("messageId", messageID)) }
        if follow { arguments.append(("follow", "1")) }
        return "/api/v1/logs?" + arguments.map { "\($0.0)=\($0.1.percentEncoded)" }.joined(separator: "&")
    }

    func run() throws {
        try ManagementClientError.run {
            if follow { return try followLogs() }
            let response = try management.call(target)
            if management.json {
                print(response.text, terminator: "")
                return
            }
            for line in response.text.split(separator: "\n") {
                guard let value = try? JSONParser.parse(Array(line.utf8)), let record = LogRecord(json: value) else {
                    throw ManagementClientError("the daemon sent a log line that is not an entry: \(line.prefix(200))", exitCode: 1)
                }
                print(record.line)
            }
        }
    }

    /// Reads the event stream until the daemon ends it (or Ctrl-C): one entry per event.
    private func followLogs() throws {
        var parser = ServerSentEventParser()
        var problem: ManagementClientError?
        let response = try management.stream(target) { bytes in
            for event in parser.feed(bytes) {
                if event.event == "error" {
                    problem = ManagementClientError("the daemon stopped following: \(event.data)", exitCode: 1)
                    return false
                }
                guard let value = try? JSONParser.parse(Array(event.data.utf8)), let record = LogRecord(json: value) else { continue }
                print(management.json ? event.data : record.line)
            }
            fflush(nil)   // each entry as it comes, also into a pipe
            return true
        }
        if let problem { throw problem }
        _ = response
    }
}
