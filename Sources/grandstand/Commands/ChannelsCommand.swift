import ArgumentParser
import GrandstandCore
import GrandstandOperations

/// `grandstand channels`: the channels the daemon serves (`GET /api/v1/channels`) as a table.
struct ChannelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "channels", abstract: "List the channels the daemon serves.")

    @OptionGroup var management: ManagementOptions

    func run() throws {
        try ManagementClientError.run {
            guard let document = try management.document("/api/v1/channels") else { return }
            print(ManagementText.channels(document), terminator: "")
        }
    }
}
