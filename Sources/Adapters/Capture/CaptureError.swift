#if canImport(Glibc)
import Glibc
#endif
import CGSPcap

/// A libpcap call or a socket call of the capture adapter failed: the operation, the status code
/// (libpcap's PCAP_ERROR_* or -1 for libpcap calls, errno for socket calls) and its text.
public struct CaptureError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    public let code: Int32
    public let message: String
    /// True when `code` is an errno (membership sockets, poll), false for a libpcap status.
    public let isSystemError: Bool

    public init(_ operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
        isSystemError = false
    }

    /// A failed system call: `errno` and strerror's text.
    public init(_ operation: String, errno number: Int32) {
        self.operation = operation
        code = number
        message = String(cString: strerror(number))
        isSystemError = true
    }

    /// What the caller can do about it.
    public enum Reason: Sendable, Equatable {
        /// The interface does not exist (yet, or any more): retry later.
        case noSuchDevice
        /// The interface exists but is down, or went down while capturing: retry when it is up.
        case interfaceDown
        /// CAP_NET_RAW (capture) or the socket operation is not permitted.
        case permissionDenied
        /// A bad filter, a full membership table, an unsupported facility: retrying will not help.
        case other
    }

    public var reason: Reason {
        if isSystemError {
            switch code {
            case ENODEV, ENXIO: return .noSuchDevice
            case ENETDOWN: return .interfaceDown
            case EPERM, EACCES: return .permissionDenied
            default: return .other
            }
        }
        switch code {
        case PCAP_ERROR_NO_SUCH_DEVICE: return .noSuchDevice
        case PCAP_ERROR_IFACE_NOT_UP: return .interfaceDown
        case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED: return .permissionDenied
        default:
            // A read on a capture whose interface went away: libpcap 1.10 reports PCAP_ERROR with
            // these texts (pcap-linux.c) rather than a dedicated code.
            let lowered = message.lowercased()
            if lowered.contains("went down") || lowered.contains("network is down") { return .interfaceDown }
            if lowered.contains("disappeared") || lowered.contains("no such device") { return .noSuchDevice }
            return .other
        }
    }

    /// Whether re-opening later may succeed (the interface is missing or down, not broken).
    public var isInterfaceUnavailable: Bool { reason == .noSuchDevice || reason == .interfaceDown }

    public var description: String {
        isSystemError ? "\(operation): \(message) (errno \(code))" : "\(operation): \(message)"
    }
}
