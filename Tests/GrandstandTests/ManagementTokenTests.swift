import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandOperations

struct ManagementTokenTests {
    static func scratch(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gs-\(name)-\(getpid())-\(UInt32.random(in: 0 ... .max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func config(stateDirectory: String, token: String? = nil) throws -> GatewayConfig {
        var config = try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"}}"#.utf8))
        config.stateDirectory = stateDirectory
        config.managementToken = token
        return config
    }

    @Test func firstStartCreatesTheTokenAndLaterStartsReuseIt() throws {
        let directory = try Self.scratch("token")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = try Self.config(stateDirectory: directory)
        let first = try TokenStore.resolve(config)
        #expect(first.source == .generated)
        #expect(first.token.count == 64 && first.token.allSatisfy(\.isHexDigit))
        let path = TokenStore.path(stateDirectory: directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first.token + "\n")
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["management-token"])

        let second = try TokenStore.resolve(config)
        #expect(second.source == .file && second.token == first.token)
        let other = try TokenStore.resolve(try Self.config(stateDirectory: try Self.scratch("token-other")))
        #expect(other.token != first.token)
    }

    @Test func aConfiguredTokenWinsAndNothingIsWritten() throws {
        let directory = try Self.scratch("token-config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolved = try TokenStore.resolve(try Self.config(stateDirectory: directory, token: "from-config"))
        #expect(resolved.token == "from-config" && resolved.source == .config)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test(arguments: ["", "\n", "has spaces\n", "tab\tinside"])
    func aCorruptTokenFileIsAClearError(content: String) throws {
        let directory = try Self.scratch("token-corrupt")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = TokenStore.path(stateDirectory: directory)
        try content.write(toFile: path, atomically: false, encoding: .utf8)
        let error = try #require(thrownError(StateFileError.self) { try TokenStore.resolve(try Self.config(stateDirectory: directory)) })
        #expect(error.path == path)
        #expect(error.description.contains("corrupt"))
        #expect(error.description.contains("delete the file to have a new token generated"))
    }

    @Test func anUnreadableTokenFileIsAClearError() throws {
        // A directory where the file should be fails for root too (permissions would not).
        let directory = try Self.scratch("token-unreadable")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = TokenStore.path(stateDirectory: directory)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = try #require(thrownError(StateFileError.self) { try TokenStore.resolve(try Self.config(stateDirectory: directory)) })
        #expect(error.errno == EISDIR)
        #expect(error.description == "read \(path): Is a directory (errno 21)")
    }

    @Test func aMissingStateDirectoryIsAStartError() throws {
        let config = try Self.config(stateDirectory: "/nonexistent-gs-state/dir")
        let error = try #require(thrownError(StateFileError.self) { try TokenStore.resolve(config) })
        #expect(error.errno == ENOENT)
        #expect(error.operation == "create")
        let daemon = Daemon(config: config, board: nil)
        #expect(throws: StateFileError.self) { try daemon.start() }
        #expect(daemon.managementServer == nil)
    }
}
