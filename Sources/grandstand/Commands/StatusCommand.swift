import ArgumentParser
import GrandstandCore
import GrandstandOperations

/// `grandstand status`: the running daemon's state (`GET /api/v1/status`) as `field value` lines.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the running daemon's status.")

    @OptionGroup var management: ManagementOptions

    func run() throws {
        try ManagementClientError.run {
            guard let document = try management.document("/api/v1/status") else { return }
            print(ManagementText.status(document), terminator: "")
        }
    }
}
