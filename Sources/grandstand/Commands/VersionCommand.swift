import ArgumentParser
import GrandstandCore
import GrandstandDaemon

/// `grandstand version`: what was built, from which commit, with which compiler and libraries.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print version, commit, Swift and library versions.")

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let info = BuildInfo.current
        if json {
            print(info.json.encoded)
        } else {
            print(info.text, terminator: "")
        }
    }
}
