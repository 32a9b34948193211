import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 engine of both listeners (docs/serving.md, "The engine"): one thread around one
/// epoll set, non-blocking sockets, answers written like nginx writes them (the head and a memory
/// body in one `sendmsg`, a memory-file body with `sendfile` of the whole range); requests parsed
/// by the core's `HTTP1RequestParser`.
public final class EventLoopServer: HTTPListener, Sendable {
    public let port: UInt16
    private let loop: EventLoop
    private let thread: ServiceThread

    public init(_ configuration: HTTPListenerConfiguration, deferring handler: @escaping HTTPDeferringHandler) throws(HTTPServerError) {
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        let loop: EventLoop
        do {
            loop = try EventLoop(listenFD: listener.fd, configuration: configuration, handler: handler)
        } catch {
            close(listener.fd)
            throw error
        }
        do {
            thread = try ServiceThread(name: configuration.threadName) { _ in loop.run() }
        } catch {
            loop.closeDescriptors()
            throw HTTPServerError("start listener thread \(configuration.threadName)", errno: error.errno)
        }
        self.loop = loop
        self.port = listener.port
    }

    public convenience init(_ configuration: HTTPListenerConfiguration, handler: @escaping HTTPHandler) throws(HTTPServerError) {
        try self.init(configuration, deferring: { request, _ in handler(request) })
    }

    /// Closes the listening socket and every connection (open streams end, deferred requests
    /// are dropped) and joins the loop's thread.
    public func stop() {
        loop.requestStop()
        thread.join()
    }

    public var statistics: HTTPListenerStatistics { loop.statistics }

    deinit { stop() }
}

/// A bound, listening, non-blocking TCP socket.
struct ListeningSocket {
    let fd: Int32
    let port: UInt16

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var address = try SocketAddress(host: host, port: port)
        let family = Int32(address.storage.ss_family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError("start listener on \(host):\(port)", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            let code = errno
            close(fd)
            throw HTTPServerError("start listener on \(host):\(port)", errno: code)
        }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) }
        }
        let bigEndian = withUnsafeBytes(of: &local) { raw -> UInt16 in
            // sin_port and sin6_port sit at the same offset (2) in both families.
            raw.load(fromByteOffset: 2, as: UInt16.self)
        }
        self.fd = fd
        self.port = UInt16(bigEndian: bigEndian)
    }
}
