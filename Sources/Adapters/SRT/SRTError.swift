#if canImport(Glibc)
import Glibc
#endif
import CGSSRT
import CGSSRTSystem

/// A libsrt call of the SRT adapter failed: the operation, libsrt's error code (`SRT_ERRNO`,
/// or a getaddrinfo code for address lookups), the system errno behind it if any, its text, and
/// for a refused connection the handshake's reject reason (draft-sharabayko-srt, "Handshake
/// Messages": the rejection codes a peer answers with).
public struct SRTError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    public let code: Int32
    public let systemErrno: Int32
    public let message: String
    public let rejectReason: SRTRejectReason?

    public init(_ operation: String, code: Int32, systemErrno: Int32 = 0, message: String, rejectReason: SRTRejectReason? = nil) {
        self.operation = operation
        self.code = code
        self.systemErrno = systemErrno
        self.message = message
        self.rejectReason = rejectReason
    }

    /// libsrt's last error on this thread (srt_getlasterror is thread-local).
    static func last(_ operation: String, rejectReason: SRTRejectReason? = nil) -> SRTError {
        var system: Int32 = 0
        let code = srt_getlasterror(&system)
        return SRTError(operation, code: code, systemErrno: system, message: String(cString: srt_getlasterror_str()),
                        rejectReason: rejectReason)
    }

    /// Nothing to read or write now on a nonblocking socket (`SRT_EASYNCRCV`/`SND`).
    public var isWouldBlock: Bool { code == gs_srt_error_async_receive() || code == gs_srt_error_async_send() }
    /// The connection is gone: lost (peer silent past its idle timeout), closed by the peer, broken.
    public var isConnectionLost: Bool {
        code == gs_srt_error_connection_lost() || code == gs_srt_error_no_connection() || code == gs_srt_error_connection_failed()
            || code == gs_srt_error_invalid_socket()
    }

    public var description: String {
        var text = "\(operation): \(message)"
        if let rejectReason { text += " (\(rejectReason))" }
        if systemErrno != 0 { text += " (errno \(systemErrno): \(String(cString: strerror(systemErrno))))" }
        return text
    }
}

/// Why a connection was refused in the handshake (libsrt `SRT_REJ_*`, and `SRT_REJX_*` codes
/// 1000+ that a listen callback sets), with libsrt's own wording.
public struct SRTRejectReason: Sendable, Equatable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    /// The peer's passphrase differs from ours (`SRT_REJ_BADSECRET`).
    public var isWrongPassphrase: Bool { code == Int32(truncatingIfNeeded: SRT_REJ_BADSECRET.rawValue) }
    /// One side has a passphrase and the other none (`SRT_REJ_UNSECURE`).
    public var isEncryptionMismatch: Bool { code == Int32(truncatingIfNeeded: SRT_REJ_UNSECURE.rawValue) }
    /// The listener is busy with its one peer (`SRT_REJX_OVERLOAD`, set by the listener gate).
    public var isOverload: Bool { code == 1402 }

    public var description: String {
        if isOverload { return "refused: the listener already has its peer" }
        if code >= 1000 { return "refused by the peer's application (code \(code))" }
        return String(cString: srt_rejectreason_str(code))
    }
}
