import ArgumentParser
import GrandstandCore
import GrandstandOperations
#if canImport(Glibc)
import Glibc
#endif

/// `grandstand update install URL|FILE` and `grandstand update status`: A/B updates through the
/// running daemon's management API, which drives RAUC (docs/updates.md).
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Install a signed update bundle into the other root slot, or show the update state.",
        subcommands: [Install.self, Status.self], defaultSubcommand: Status.self)

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install a RAUC bundle (.raucb) from an http(s) URL or a file on the box; waits for the outcome.")
        @OptionGroup var management: ManagementOptions
        @Argument(help: "http(s) URL or path of the bundle.") var source: String
        @Flag(help: "Reboot into the new slot once it is written.") var reboot = false
        @Flag(help: "Return once the daemon accepted the job instead of waiting for the outcome.") var noWait = false
        @Option(help: "Seconds to wait for the installation.") var installTimeout: Double = 1800

        func run() throws {
            var location = source
            if !source.hasPrefix("http://") && !source.hasPrefix("https://") && !source.hasPrefix("/") {
                guard let resolved = realpath(source, nil) else { throw ValidationError("\(source): no such file") }
                defer { free(resolved) }
                location = String(cString: resolved)
            }
            try ManagementClientError.run {
                let body = JSONValue.object([("source", .string(location)), ("reboot", .bool(reboot))]).encoded
                _ = try management.call("/api/v1/update", method: "POST", body: Array(body.utf8))
                print("installing \(location)")
                fflush(nil)
                guard !noWait else { return }
                let deadline = Double(time(nil)) + installTimeout
                var shown = ""
                while Double(time(nil)) < deadline {
                    let status = try management.client().document("/api/v1/update")
                    let step = Self.progressLine(status)
                    if step != shown { print(step); fflush(nil); shown = step }
                    if case .string(let phase)? = status["phase"], phase != "installing" {
                        guard case .string(let result)? = status["last"]?["result"], result == "installed" else {
                            let message: String
                            if case .string(let text)? = status["last"]?["message"] { message = text } else { message = "failed" }
                            throw ManagementClientError("update refused: \(message)", exitCode: 1)
                        }
                        if case .string(let text)? = status["last"]?["message"] { print("installed: \(text)") }
                        return
                    }
                    usleep(500_000)
                }
                throw ManagementClientError("still installing after \(Int(installTimeout)) s", exitCode: 75)
            }
        }

        static func progressLine(_ status: JSONValue) -> String {
            guard case .number(let percent)? = status["progress"]?["percent"], case .string(let step)? = status["progress"]?["step"] else {
                return ""
            }
            return "\(Int(percent)) % \(step)"
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Slots, what is booted, progress and the last result.")
        @OptionGroup var management: ManagementOptions

        func run() throws {
            try ManagementClientError.run {
                guard let status = try management.document("/api/v1/update") else { return }
                print(Self.text(status))
            }
        }

        static func text(_ status: JSONValue) -> String {
            guard status["available"] != .bool(false) else { return "updates: not available on this box" }
            var lines: [String] = []
            if case .string(let phase)? = status["phase"] { lines.append("phase: \(phase) \(Install.progressLine(status))") }
            if case .array(let slots)? = status["slots"] {
                for slot in slots {
                    guard case .string(let name)? = slot["name"] else { continue }
                    let text = { (key: String) -> String in if case .string(let v)? = slot[key] { v } else { "-" } }
                    lines.append("slot \(name) (\(text("bootname"))): \(text("state")), \(text("bootStatus")), version \(text("version"))")
                }
            }
            if case .object? = status["last"], case .string(let result)? = status["last"]?["result"] {
                let message: String
                if case .string(let text)? = status["last"]?["message"] { message = text } else { message = "" }
                lines.append("last: \(result): \(message)")
            }
            return lines.joined(separator: "\n")
        }
    }
}
