import ArgumentParser
import Foundation
import Testing
@testable import grandstand
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// `grandstand --version` (the packaged binary's smoke test runs it): the VERSION file's version
/// and the commit, as ArgumentParser's clean exit.
struct VersionFlagTests {
    @Test func versionFlagPrintsTheVersionFileAndTheCommit() throws {
        let versionFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("VERSION")
        let version = try String(contentsOf: versionFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        var message = ""
        var code: Int32 = -1
        do {
            _ = try Grandstand.parseAsRoot(["--version"])
        } catch {
            message = Grandstand.fullMessage(for: error)
            code = Grandstand.exitCode(for: error).rawValue
        }
        #expect(code == 0)
        #expect(message.hasPrefix("grandstand \(version) (commit "), "\(message)")
    }
}
