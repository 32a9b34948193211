import Foundation

/// Golden fixtures under Tests/Fixtures, found from this source file's path so they resolve the
/// same on the host, in the cross build and under qemu-user (which sees the host's files). The
/// booted VM has no checkout: it gets a copy of the tree and says where with GRANDSTAND_FIXTURES.
public enum Fixtures {
    public static let directory = ProcessInfo.processInfo.environment["GRANDSTAND_FIXTURES"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The absolute path of `relative` (e.g. "capture/mixed.pcap").
    public static func path(_ relative: String) -> String {
        directory.appendingPathComponent(relative).path
    }

    public static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(relative)))
    }
}

/// Where the test process runs, for tests of kernel facilities that differ between environments.
public enum TestEnvironment {
    /// True under qemu-user (`make test-arm64` sets GRANDSTAND_QEMU_USER=1): no live capture,
    /// GPIO or nl80211 there, so those tests assert the documented error instead.
    public static var isQEMUUser: Bool { ProcessInfo.processInfo.environment["GRANDSTAND_QEMU_USER"] == "1" }

    public static var isRoot: Bool { getuid() == 0 }

    /// The step of the exhaustive robustness sweeps (every byte flipped, every prefix cut): 1 on
    /// the host, which covers every position; 4 under qemu-user, where the emulated arm64 build
    /// runs a quarter of them at ~10× the cost (docs/cross.md, "Contract for tests under qemu-user").
    public static var sweepStep: Int { isQEMUUser ? 4 : 1 }
}

/// The `E` that `body` throws, nil if it returns or throws something else. Swift Testing 6.0's
/// `#expect(throws:)` does not return the error (6.1 does), and the cross toolchain is 6.0, so
/// tests inspect errors this way.
public func thrownError<E: Error, R>(_ type: E.Type, _ body: () throws -> R) -> E? {
    do {
        _ = try body()
        return nil
    } catch let error as E {
        return error
    } catch {
        return nil
    }
}
