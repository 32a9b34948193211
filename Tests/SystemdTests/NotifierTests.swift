#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import Systemd

/// sd_notify reads NOTIFY_SOCKET from the process environment, so these run one at a time.
@Suite(.serialized)
struct NotifierTests {
    @Test func withoutNotifySocketIsAQuietNoOp() throws {
        let saved = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
        unsetenv("NOTIFY_SOCKET")
        defer { if let saved { setenv("NOTIFY_SOCKET", saved, 1) } }
        #expect(try Notifier().notify(.ready) == false)
    }

    @Test func deliversReadyAndStatusToTheNotifySocket() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gs-notify-\(getpid()).sock").path
        let listener = try UnixDatagramListener(path: path)
        setenv("NOTIFY_SOCKET", path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }

        #expect(try Notifier().notify(.ready, .status("2 channels\nlive")) == true)
        #expect(try listener.receive() == "READY=1\nSTATUS=2 channels live")

        try Notifier().notify(.watchdog)
        #expect(try listener.receive() == "WATCHDOG=1")
    }

    @Test func watchdogIsOffOutsideSystemd() throws {
        unsetenv("WATCHDOG_USEC")
        #expect(try Notifier().watchdogInterval() == nil)
    }
}

/// A bound AF_UNIX datagram socket standing in for the service manager's notification socket.
final class UnixDatagramListener {
    let fd: Int32
    let path: String

    init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw SystemdError("socket", errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw SystemdError("bind \(path)", errno: errno) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(fd)
        unlink(path)
    }

    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 0 else { throw SystemdError("recv", errno: errno) }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}
