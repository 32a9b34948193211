import Foundation

/// The one polling helper, for what no event announces (another process's state, a file on
/// disk, what the kernel lists in /proc): checks `condition` every 50 ms for up to `timeout` s —
/// a generous bound for slow emulated machines under load, never a performance assertion.
public func waitFor(_ what: String, timeout: Double = 60, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        Thread.sleep(forTimeInterval: 0.05)
    }
    throw WaitTimeout(what: what, seconds: timeout)
}

public struct WaitTimeout: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double
    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }
    public var description: String { "timed out after \(seconds) s waiting for \(what)" }
}
