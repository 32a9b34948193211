import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore
import GrandstandOperations

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
                print(ManagementText.leds(document))
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
}
