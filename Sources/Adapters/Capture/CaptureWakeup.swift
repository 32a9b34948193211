#if canImport(Glibc)
import Glibc
#endif

/// A pipe a driver loop polls beside the capture descriptor, so another thread (a signal
/// handler's loop, a shutdown) can end a `LiveCapture.wait` at once. Both ends nonblocking.
public final class CaptureWakeup: Sendable {
    /// The read end: readable after `signal()` until `drain()`.
    public let fileDescriptor: Int32
    private let writeEnd: Int32

    public init() throws(CaptureError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw CaptureError("pipe (wakeup)", errno: errno) }
        for fd in ends {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fileDescriptor)
        close(writeEnd)
    }

    /// Wakes the waiting loop; safe from any thread. A full pipe already means "woken".
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe so the next wait blocks again.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fileDescriptor, &buffer, buffer.count) > 0 {}
    }
}
