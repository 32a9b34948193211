import Foundation

/// Where the real-line tests run, from the environment:
/// - GPIO_TEST_CHIP: chip name or path (default /dev/gpiochip0 when it exists);
/// - GPIO_TEST_LINES: comma-separated lines safe to drive (default "0"; VM: "0,1,2");
/// - GPIO_TEST_BUSY_LINE: a line the kernel holds (VM: 3, the power key), to check EBUSY.
enum TestEnvironment {
    static let env = ProcessInfo.processInfo.environment

    static var chip: String? {
        if let chip = env["GPIO_TEST_CHIP"], !chip.isEmpty { return chip }
        return FileManager.default.fileExists(atPath: "/dev/gpiochip0") ? "/dev/gpiochip0" : nil
    }

    static var lines: [UInt32] {
        let list = (env["GPIO_TEST_LINES"] ?? "0").split(separator: ",").compactMap {
            UInt32($0.trimmingCharacters(in: .whitespaces))
        }
        return list.isEmpty ? [0] : list
    }

    static var busyLine: UInt32? { env["GPIO_TEST_BUSY_LINE"].flatMap { UInt32($0) } }

    /// Under the cross runner's qemu-user, host tools are x86 binaries: do not spawn them.
    static var underQEMUUser: Bool { env["GRANDSTAND_QEMU_USER"] == "1" }

    /// A gpiochip name with no device node, starting at gpiochip7.
    static func absentChipName() -> String? {
        (7..<200).map { "gpiochip\($0)" }.first {
            !FileManager.default.fileExists(atPath: "/dev/" + $0)
        }
    }
}

/// libgpiod's version as its own tools report it, to cross-check the library.
enum ReferenceTools {
    static func libgpiodVersion() -> (source: String, version: String)? {
        guard !TestEnvironment.underQEMUUser else { return nil }
        // "gpiodetect (libgpiod) v1.6.3"
        if let out = run(["gpiodetect", "--version"]),
           let word = out.split(whereSeparator: \.isWhitespace).first(where: { $0.hasPrefix("v") }) {
            return ("gpiodetect --version", String(word.dropFirst()))
        }
        if let out = run(["pkg-config", "--modversion", "libgpiod"]) {
            return ("pkg-config", out.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return nil
    }

    /// Runs a program found on PATH; its stdout, or nil if it could not run or failed.
    static func run(_ argv: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
