import ArgumentParser
import GrandstandCore

/// `grandstand status`: the running daemon's state (`GET /api/v1/status`) as `field value` lines.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the running daemon's status.")

    @OptionGroup var management: ManagementOptions

    func run() throws {
        try ManagementClientError.run {
            guard let document = try management.document("/api/v1/status") else { return }
            print(Self.render(document), terminator: "")
        }
    }

    static func render(_ document: JSONValue) -> String {
        var table = TextTable(["FIELD", "VALUE"])
        for (name, value) in TextTable.flattened(document) { table.append([name, value]) }
        return table.text
    }
}
