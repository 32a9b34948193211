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

    /// Where the daemon's management listener is and its token.
    struct Connection: ParsableArguments {
        @Option(help: "Configuration file to read the management address and token from.")
        var config: String = "/etc/grandstand/config.json"
        @Option(help: "Management address host:port (overrides the config).")
        var url: String?
        @Option(help: "Management token (overrides the config).")
        var token: String?

        func call(_ method: String, _ path: String) throws -> String {
            var address = url.flatMap(ListenAddress.init(parsing:))
            var bearer = token
            if address == nil || bearer == nil {
                guard let bytes = FileManager.default.contents(atPath: config) else {
                    throw ValidationError("cannot read \(config) (give --url and --token instead)")
                }
                let parsed = try GatewayConfig.decode(Array(bytes))
                address = address ?? parsed.listeners.management
                // No token in the config: the one the daemon generated in its state directory.
                bearer = bearer ?? parsed.managementToken
                    ?? (try? TokenStore.read(TokenStore.path(stateDirectory: parsed.stateDirectory))) ?? nil
            }
            guard let address, let bearer else { throw ValidationError("no management address or token") }
            let response = try ManagementCall.request(method: method, path: path, address: address, token: bearer)
            guard response.status == 200 else {
                throw ManagementCall.Failure(message: "\(method) \(path): HTTP \(response.status): \(response.body)")
            }
            return response.body
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The LEDs, their levels, the pattern and the service state.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print the raw JSON.") var json = false

        func run() throws {
            let body = try connection.call("GET", "/api/v1/leds")
            if json { print(body, terminator: body.hasSuffix("\n") ? "" : "\n"); return }
            print(LedsCommand.describe(try JSONParser.parse(Array(body.utf8))))
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Light every LED for one second (lamp test).")
        @OptionGroup var connection: Connection
        func run() throws {
            _ = try connection.call("POST", "/api/v1/leds/test")
            print("lamp test: all LEDs on for 1 s")
        }
    }

    struct Locate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Blink every LED fast so the box can be found (0 stops).")
        @OptionGroup var connection: Connection
        @Argument(help: "Seconds to blink (0...3600).") var seconds: Int = 30
        func run() throws {
            _ = try connection.call("POST", "/api/v1/leds/locate?seconds=\(seconds)")
            print(seconds == 0 ? "locate stopped" : "locating for \(seconds) s")
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
