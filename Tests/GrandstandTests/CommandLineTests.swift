import ArgumentParser
import GrandstandCore
import Testing
@testable import grandstand
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

struct CommandLineTests {
    @Test func helpListsTheSubcommands() {
        let help = Grandstand.helpMessage()
        #expect(help.contains("run"))
        #expect(help.contains("version"))
    }

    @Test func runTakesAConfigPath() throws {
        let command = try #require(try Grandstand.parseAsRoot(["run", "--config", "/tmp/x.json"]) as? RunCommand)
        #expect(command.config == "/tmp/x.json")
    }

    @Test func unknownSubcommandIsRejected() {
        #expect(throws: (any Error).self) { try Grandstand.parseAsRoot(["frobnicate"]) }
    }

    @Test func versionReportsEveryLinkedLibrary() {
        let info = BuildInfo.current
        #expect(!info.version.isEmpty)
        #expect(info.swiftVersion.hasPrefix("6."))
        #expect(info.libraries["libpcap"]?.hasPrefix("libpcap version 1.") == true)
        // libmicrohttpd left the package: both listeners run our own engine.
        #expect(info.libraries["libmicrohttpd"] == nil)
        #expect(info.libraries["libsystemd"]?.hasPrefix("libsystemd.so.0") == true)
        #expect(info.libraries["libgpiod"]?.first?.isNumber == true)
        #expect(info.libraries["ffmpeg"]?.hasPrefix("FFmpeg ") == true)
        #expect(info.text.hasPrefix("grandstand \(info.version) (commit "))
    }
}
