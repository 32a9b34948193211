import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 engine of both listeners (docs/serving.md, "The engine"): one thread around one
/// epoll set, non-blocking sockets, answers written like nginx writes them (the head and a memory
/// body in one `sendmsg`, a memory-file body with `sendfile` of the whole range); requests parsed
/// by the core's `HTTP1RequestParser`.
public final class EventLoopServer: HTTPListener, @unchecked Sendable {
    // @unchecked: `thread` is written in init and cleared in stop() under `stopLock`; the loop
    // keeps its own state on its thread.
    public let port: UInt16
    private let loop: EventLoop
    private var thread: pthread_t?
    private let stopLock = Lock()

    public init(_ configuration: HTTPListenerConfiguration, deferring handler: @escaping HTTPDeferringHandler) throws(HTTPServerError) {
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        let loop: EventLoop
        do {
            loop = try EventLoop(listenFD: listener.fd, configuration: configuration, handler: handler)
        } catch {
            close(listener.fd)
            throw error
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(loop)
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<EventLoop>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, context.toOpaque())
        guard created == 0 else {
            context.release()
            loop.closeDescriptors()
            throw HTTPServerError("start listener thread", errno: created)
        }
        self.loop = loop
        self.thread = thread
        self.port = listener.port
    }

    public convenience init(_ configuration: HTTPListenerConfiguration, handler: @escaping HTTPHandler) throws(HTTPServerError) {
        try self.init(configuration, deferring: { request, _ in handler(request) })
    }

    /// Closes the listening socket and every connection (open streams end, deferred requests
    /// are dropped) and joins the loop's thread.
    public func stop() {
        stopLock.withLock {
            guard let thread else { return }
            self.thread = nil
            loop.requestStop()
            pthread_join(thread, nil)
        }
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
