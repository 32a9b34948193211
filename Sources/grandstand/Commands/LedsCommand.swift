import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore

/// `grandstand leds status|test|locate`: the status LEDs through the management API.
struct LedsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leds", abstract: "Show, lamp-test or locate the status LEDs of a running daemon.",
        subcommands: [Status.self, Test.self, Locate.self], defaultSubcommand: Status.self)

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The LEDs, their levels, the pattern and the service state.")
        @OptionGroup var management: ManagementOptions

        func run() throws {
            try ManagementClientError.run {
                guard let document = try management.document("/api/v1/leds") else { return }   // --json printed it
                print(LedsCommand.describe(document))
            }
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Light every LED for one second (lamp test).")
        @OptionGroup var management: ManagementOptions
        func run() throws {
            try ManagementClientError.run {
                _ = try management.call("/api/v1/leds/test", method: "POST")
                print("lamp test: all LEDs on for 1 s")
            }
        }
    }

    struct Locate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Blink every LED fast so the box can be found (0 stops).")
        @OptionGroup var management: ManagementOptions
        @Argument(help: "Seconds to blink (0...3600).") var seconds: Int = 30
        func run() throws {
            try ManagementClientError.run {
                _ = try management.call("/api/v1/leds/locate?seconds=\(seconds)", method: "POST")
                print(seconds == 0 ? "locate stopped" : "locating for \(seconds) s")
            }
        }
    }

    /// A few readable lines: service state and pattern, then one line per LED.
    static func describe(_ document: JSONValue) -> String {
        var lines: [String] = []
        if let service = document["service"] {
            let state = service["state"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
            var reasons: [String] = []
            if case .array(let items)? = service["reasons"] { reasons = items.compactMap { if case .string(let s) = $0 { s } else { nil } } }
            let pattern = document["pattern"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
            lines.append("service \(state)" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))") + ", pattern \(pattern)")
        }
        if case .array(let leds)? = document["leds"] {
            for led in leds {
                let name = led["name"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
                let chip = led["chip"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
                let line = led["line"].flatMap { IngestStats.int($0) } ?? -1
                let lit: String
                switch led["lit"] {
                case .bool(true)?: lit = "on"
                case .bool(false)?: lit = "off"
                default: lit = "not held"
                }
                lines.append("  \(name.padding(9)) \(chip) line \(line): \(lit)")
            }
        }
        if case .array(let failures)? = document["unavailable"] {
            for case .string(let failure) in failures { lines.append("  unavailable: \(failure)") }
        }
        return lines.joined(separator: "\n")
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
