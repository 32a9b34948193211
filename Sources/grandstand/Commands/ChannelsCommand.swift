import ArgumentParser
import GrandstandCore

/// `grandstand channels`: the channels the daemon serves (`GET /api/v1/channels`) as a table.
struct ChannelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "channels", abstract: "List the channels the daemon serves.")

    @OptionGroup var management: ManagementOptions

    func run() throws {
        try ManagementClientError.run {
            guard let document = try management.document("/api/v1/channels") else { return }
            print(Self.render(document), terminator: "")
        }
    }

    static func render(_ document: JSONValue) -> String {
        guard case .array(let channels) = document, !channels.isEmpty else { return "no channels\n" }
        var table = TextTable(["ID", "KIND", "NAME", "LIVE", "KBIT/S", "PLAYLIST"])
        for channel in channels {
            var kbps = "-"
            if case .number(let bits)? = channel["bandwidth"] { kbps = String(Int(bits / 1000)) }
            table.append([TextTable.cell(channel["id"]), TextTable.cell(channel["kind"]), TextTable.cell(channel["name"]),
                          TextTable.cell(channel["live"]), kbps,
                          TextTable.cell(channel["playlist"] ?? channel["messages"])])
        }
        return table.text
    }
}
