import ArgumentParser
import GrandstandCore
import GrandstandOperations

/// `grandstand record start|stop|ls`: recordings of live channels through the management API
/// (docs/records.md).
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record", abstract: "Start, stop or list recordings of live video channels.",
        subcommands: [Start.self, Stop.self, List.self], defaultSubcommand: List.self)

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start recording a live video channel under a name.")
        @Argument(help: "The recording's name (letters, digits, '.', '_', '-').") var name: String
        @Option(help: "The channel id to record (as in `grandstand channels`).") var channel: String
        @OptionGroup var management: ManagementOptions

        func run() throws {
            try ManagementClientError.run {
                let body = JSONValue.object([("name", .string(name)), ("channel", .string(channel))]).encoded
                let response = try management.call("/api/v1/records", method: "POST", body: Array(body.utf8))
                print(try RecordCommand.line(response.body))
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a recording; its files are then served.")
        @Argument(help: "The recording's name.") var name: String
        @OptionGroup var management: ManagementOptions

        func run() throws {
            try ManagementClientError.run {
                let body = JSONValue.object([("name", .string(name))]).encoded
                let response = try management.call("/api/v1/records/stop", method: "POST", body: Array(body.utf8))
                print(try RecordCommand.line(response.body))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "ls", abstract: "List recordings and their states.")
        @OptionGroup var management: ManagementOptions

        func run() throws {
            try ManagementClientError.run {
                guard let document = try management.document("/api/v1/records") else { return }
                print(ManagementText.records(document), terminator: "")
            }
        }
    }

    static func line(_ body: [UInt8]) throws -> String {
        let record = try JSONParser.parse(body)
        return ManagementText.records(.object([("records", .array([record]))]))
    }
}
