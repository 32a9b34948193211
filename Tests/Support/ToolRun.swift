import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a command-line tool (ffmpeg, ffprobe, …) printed and how it ended.
public struct ToolResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `path` with `arguments` (in `directory` when given). Output goes to files, so no pipe can
/// fill up and stall the tool; the wait is on the tool's exit (its termination handler), bounded
/// by `timeout` seconds, after which it is killed (SIGKILL).
public func runTool(_ path: String, _ arguments: [String], in directory: URL? = nil, timeout: Double = 60) throws -> ToolResult {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("gs-tool-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    defer { try? out.close(); try? err.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.standardOutput = out
    process.standardError = err
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    if exited.wait(timeout: .now() + timeout) == .timedOut {
        kill(process.processIdentifier, SIGKILL)
        exited.wait()
    }
    return ToolResult(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
}

/// The `grandstand` executable built beside the test bundle.
public var grandstandBinary: String { builtProgram("grandstand").last ?? "" }

/// The command that runs the package's program `name` built beside the test bundle: the program
/// itself, or under qemu-user (`make test-arm64`) behind the runner it exports
/// (GRANDSTAND_QEMU_USER_RUNNER: the emulator cannot exec an arm64 program directly here).
public func builtProgram(_ name: String) -> [String] {
    let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    return (ProcessInfo.processInfo.environment["GRANDSTAND_QEMU_USER_RUNNER"].map { [$0] } ?? []) + [path]
}

/// Runs the built `grandstand` with `arguments` (`runTool`, through qemu-user's runner there).
public func runGrandstand(_ arguments: [String], timeout: Double = 60) throws -> ToolResult {
    let command = builtProgram("grandstand")
    return try runTool(command[0], Array(command.dropFirst()) + arguments, timeout: timeout)
}
