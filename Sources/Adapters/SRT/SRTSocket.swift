#if canImport(Glibc)
import Glibc
#endif
import CGSSRT
import CGSSRTSystem

/// What a connection is set up with (libsrt socket options, before connect or listen): live
/// mode (draft-sharabayko-srt, "Live" transmission: message API, TSBPD, too-late drop).
public struct SRTSettings: Sendable, Equatable {
    /// `SRTO_LATENCY` (both directions): the receiver holds packets this long for retransmission.
    public var latencyMilliseconds: Int32 = 120
    /// `SRTO_PASSPHRASE` (10–79 characters), nil for no encryption.
    public var passphrase: String?
    /// `SRTO_PBKEYLEN`: 16, 24 or 32 bytes (AES-128/192/256); used with a passphrase.
    public var keyLength: Int32 = 16
    /// `SRTO_CONNTIMEO`: how long a caller's handshake may take.
    public var connectTimeoutMilliseconds: Int32 = 3_000
    /// `SRTO_PEERIDLETIMEO`: a connection whose peer is silent this long is broken.
    public var peerIdleTimeoutMilliseconds: Int32 = 5_000

    public init(latencyMilliseconds: Int32 = 120, passphrase: String? = nil, keyLength: Int32 = 16) {
        self.latencyMilliseconds = latencyMilliseconds
        self.passphrase = passphrase
        self.keyLength = keyLength
    }
}

/// One SRT socket, nonblocking, with its own libsrt epoll so waits have a timeout (a service
/// thread waits in short slices and checks its stop signal between them). Closed on deinit.
/// Used from one thread at a time.
public final class SRTSocket {
    public let handle: SRTSOCKET
    private let poll: Int32
    private var gate: OpaquePointer?

    /// `SRT_INVALID_SOCK` and `SRT_ERROR`: srt.h declares them `static const`, which Swift 6.0.3
    /// imports as symbols to link against (lld: undefined symbol) instead of values.
    static let invalid: SRTSOCKET = -1
    static let failed: Int32 = -1

    /// Largest live-mode payload (`SRT_LIVE_MAX_PLSIZE`); FFmpeg sends 1316 (7 × 188).
    public static let maximumPayload = 1456

    public init(settings: SRTSettings) throws(SRTError) {
        SRTLibrary.start()
        let socket = srt_create_socket()
        guard socket != SRTSocket.invalid else { throw SRTError.last("srt_create_socket") }
        handle = socket
        poll = srt_epoll_create()
        guard poll >= 0 else {
            let error = SRTError.last("srt_epoll_create")
            srt_close(socket)
            throw error
        }
        do throws(SRTError) {
            try set(SRTO_TRANSTYPE, Int32(truncatingIfNeeded: SRTT_LIVE.rawValue), "SRTO_TRANSTYPE")
            try set(SRTO_RCVSYN, false, "SRTO_RCVSYN")
            try set(SRTO_SNDSYN, false, "SRTO_SNDSYN")
            try set(SRTO_LATENCY, settings.latencyMilliseconds, "SRTO_LATENCY")
            try set(SRTO_CONNTIMEO, settings.connectTimeoutMilliseconds, "SRTO_CONNTIMEO")
            try set(SRTO_PEERIDLETIMEO, settings.peerIdleTimeoutMilliseconds, "SRTO_PEERIDLETIMEO")
            if let passphrase = settings.passphrase {
                try set(SRTO_PBKEYLEN, settings.keyLength, "SRTO_PBKEYLEN")
                let bytes = Array(passphrase.utf8)
                guard srt_setsockflag(socket, SRTO_PASSPHRASE, bytes, Int32(bytes.count)) == 0 else {
                    throw SRTError.last("set SRTO_PASSPHRASE")
                }
            }
            var events = Int32(truncatingIfNeeded: SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue)
            guard srt_epoll_add_usock(poll, socket, &events) == 0 else { throw SRTError.last("srt_epoll_add_usock") }
        } catch {
            srt_epoll_release(poll)
            srt_close(socket)
            throw error
        }
    }

    /// An accepted socket (inherits the listener's options).
    private init(accepted: SRTSOCKET) throws(SRTError) {
        handle = accepted
        poll = srt_epoll_create()
        guard poll >= 0 else {
            let error = SRTError.last("srt_epoll_create")
            srt_close(accepted)
            throw error
        }
        var events = Int32(truncatingIfNeeded: SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue)
        guard srt_epoll_add_usock(poll, accepted, &events) == 0 else {
            let error = SRTError.last("srt_epoll_add_usock")
            srt_epoll_release(poll)
            srt_close(accepted)
            throw error
        }
    }

    deinit {
        srt_epoll_release(poll)
        srt_close(handle)
        if let gate { gs_srt_gate_free(gate) }
    }

    private func set(_ option: SRT_SOCKOPT, _ value: Int32, _ name: String) throws(SRTError) {
        var value = value
        guard srt_setsockflag(handle, option, &value, Int32(MemoryLayout<Int32>.size)) == 0 else { throw SRTError.last("set \(name)") }
    }

    private func set(_ option: SRT_SOCKOPT, _ value: Bool, _ name: String) throws(SRTError) {
        var flag = value
        guard srt_setsockflag(handle, option, &flag, Int32(MemoryLayout<Bool>.size)) == 0 else { throw SRTError.last("set \(name)") }
    }

    // MARK: Caller

    /// Starts the handshake with `address`; `waitConnected` tells how it ends.
    public func connect(_ address: SRTAddress) throws(SRTError) {
        var events = Int32(truncatingIfNeeded: SRT_EPOLL_OUT.rawValue | SRT_EPOLL_ERR.rawValue)
        guard srt_epoll_update_usock(poll, handle, &events) == 0 else { throw SRTError.last("srt_epoll_update_usock") }
        let status = address.withSockaddr { srt_connect(handle, $0, $1) }
        guard status != SRTSocket.failed else { throw SRTError.last("connect \(address)", rejectReason: rejectReason) }
    }

    /// Waits up to `timeoutMilliseconds` for a started handshake: true once connected, false if
    /// still connecting; throws with the reject reason when it failed.
    public func waitConnected(timeoutMilliseconds: Int64) throws(SRTError) -> Bool {
        _ = try wait(timeoutMilliseconds: timeoutMilliseconds)
        switch state {
        case SRTS_CONNECTED:
            var events = Int32(truncatingIfNeeded: SRT_EPOLL_IN.rawValue | SRT_EPOLL_ERR.rawValue)
            guard srt_epoll_update_usock(poll, handle, &events) == 0 else { throw SRTError.last("srt_epoll_update_usock") }
            return true
        case SRTS_CONNECTING, SRTS_OPENED, SRTS_INIT:
            return false
        default:
            let reason = rejectReason
            throw SRTError("connect", code: gs_srt_error_connection_rejected(), message: "connection not established",
                           rejectReason: reason)
        }
    }

    // MARK: Listener

    /// Binds `address` and listens, admitting one peer at a time (the gate refuses callers while
    /// `busy` is set).
    public func listen(_ address: SRTAddress) throws(SRTError) {
        guard address.withSockaddr({ srt_bind(handle, $0, $1) }) == 0 else { throw SRTError.last("bind \(address)") }
        guard let gate = gs_srt_gate_create() else { throw SRTError("listen", code: ENOMEM, systemErrno: ENOMEM, message: "no memory") }
        self.gate = gate
        guard gs_srt_gate_attach(gate, handle) == 0 else { throw SRTError.last("srt_listen_callback") }
        guard srt_listen(handle, 1) == 0 else { throw SRTError.last("listen \(address)") }
    }

    /// While true, new callers are refused (`SRT_REJX_OVERLOAD`) and counted in `refusedPeers`.
    public var busy: Bool = false {
        didSet { if let gate { gs_srt_gate_set_busy(gate, busy ? 1 : 0) } }
    }

    /// Callers the listener refused because it already had its peer.
    public var refusedPeers: Int {
        guard let gate else { return 0 }
        return Int(gs_srt_gate_refused(gate))
    }

    /// Whether libsrt socket `id` was one of the last callers of this listener.
    public func sawCaller(_ id: Int32) -> Bool { gate.map { gs_srt_gate_saw($0, id) != 0 } ?? false }

    /// A connected peer if one is waiting, nil if none.
    public func accept() throws(SRTError) -> (socket: SRTSocket, peer: SRTAddress)? {
        var peer = SRTAddress()
        peer.length = Int32(MemoryLayout<sockaddr_storage>.size)
        let accepted = withUnsafeMutableBytes(of: &peer.storage) { raw in
            srt_accept(handle, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &peer.length)
        }
        guard accepted != SRTSocket.invalid else {
            let error = SRTError.last("accept")
            if error.isWouldBlock { return nil }
            throw error
        }
        return (try SRTSocket(accepted: accepted), peer)
    }

    /// The port this socket is bound to (a listener bound to port 0).
    public var localPort: UInt16 {
        var address = SRTAddress()
        address.length = Int32(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutableBytes(of: &address.storage) { raw in
            srt_getsockname(handle, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &address.length)
        }
        return status == 0 ? address.port : 0
    }

    // MARK: Data

    /// Waits up to `timeoutMilliseconds` for the socket to be readable (data, a caller to accept)
    /// or broken; false on timeout.
    public func wait(timeoutMilliseconds: Int64) throws(SRTError) -> Bool {
        var event = SRT_EPOLL_EVENT()
        let ready = srt_epoll_uwait(poll, &event, 1, timeoutMilliseconds)
        guard ready >= 0 else {
            let error = SRTError.last("srt_epoll_uwait")
            if error.code == gs_srt_error_timeout() { return false }
            throw error
        }
        return ready > 0
    }

    /// One message into `buffer` (at least `maximumPayload` bytes): its length, or nil when none
    /// is ready. Throws when the connection is gone.
    public func receive(into buffer: inout [UInt8]) throws(SRTError) -> Int? {
        let count = buffer.withUnsafeMutableBytes { raw in
            srt_recvmsg(handle, raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        guard count != SRTSocket.failed else {
            let error = SRTError.last("receive")
            if error.isWouldBlock { return nil }
            throw error
        }
        return Int(count)
    }

    /// Sends one message (at most `maximumPayload` bytes); false when the send buffer is full.
    public func send(_ bytes: ArraySlice<UInt8>) throws(SRTError) -> Bool {
        let count = bytes.withUnsafeBytes { raw in
            srt_sendmsg(handle, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), -1, 0)
        }
        guard count != SRTSocket.failed else {
            let error = SRTError.last("send")
            if error.isWouldBlock { return false }
            throw error
        }
        return true
    }

    /// The receive counters since the connection started.
    public func statistics() throws(SRTError) -> SRTStatistics {
        var perf = SRT_TRACEBSTATS()
        guard srt_bstats(handle, &perf, 0) == 0 else { throw SRTError.last("srt_bstats") }
        return SRTStatistics(perf)
    }

    public var state: SRT_SOCKSTATUS { srt_getsockstate(handle) }

    /// Why the last handshake failed (`SRT_REJ_UNKNOWN` while none did).
    public var rejectReason: SRTRejectReason { SRTRejectReason(code: srt_getrejectreason(handle)) }

    public var isConnected: Bool { state == SRTS_CONNECTED }
    /// A caller's handshake is under way.
    public var isConnecting: Bool { state == SRTS_CONNECTING }
}
