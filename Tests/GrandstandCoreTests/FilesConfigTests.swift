import Testing
@testable import GrandstandCore
import TestSupport

/// The `files` section (docs/files.md "Large files"): limits of objects in memory and on disk.
struct FilesConfigTests {
    static func config(_ files: String) throws -> GatewayConfig {
        try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}\#(files)}"#.utf8))
    }

    @Test func defaultsAcceptAGibibyteOnDisk() throws {
        let receiver = try Self.config("").fluteReceiver
        #expect(receiver.maxDiskObjectBytes == 1 << 30 && receiver.maxObjectBytes == 128 << 20 && receiver.diskThresholdBytes == 16 << 20)
        let files = try Self.config(#","files":{"maxDiskObjectBytes":4294967296,"diskThresholdBytes":0,"diskFloorBytes":1048576}"#).files
        #expect(files.maxDiskObjectBytes == 1 << 32 && files.diskThresholdBytes == 0 && files.diskFloorBytes == 1 << 20)
    }

    @Test(arguments: [
        (#","files":{"maxDiskObjectBytes":0,"diskFloorBytes":-1}"#,
         ["$.files.maxDiskObjectBytes: 0 is out of range 1...281474976710656", "$.files.diskFloorBytes: -1 is out of range 0...281474976710656"]),
        (#","files":{"maxObjectBytes":1000,"maxBufferedBytes":10}"#,
         ["$.files.maxObjectBytes: 1000 is larger than maxBufferedBytes (10)"]),
        (#","files":{"maxBytes":1}"#,
         ["$.files.maxBytes: unknown key (expected one of: diskFloorBytes, diskThresholdBytes, maxBufferedBytes, maxDiskObjectBytes, maxObjectBytes)"]),
    ])
    func badValuesAreReportedWithTheirPath(files: String, expected: [String]) {
        let error = thrownError(ConfigError.self) { _ = try Self.config(files) }
        #expect(error?.issues.map(\.description) == expected)
    }
}
