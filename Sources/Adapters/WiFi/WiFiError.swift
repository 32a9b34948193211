import CGSNetlink
#if canImport(Glibc)
import Glibc
#endif

/// A failed netlink/nl80211 call, with libnl's error code and the kernel's errno when known.
public enum WiFiError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Generic netlink sockets cannot be opened here. Under qemu-user this is expected: it
    /// emulates only NETLINK_ROUTE/KOBJECT_UEVENT/AUDIT, so socket() fails with EPROTONOSUPPORT.
    case netlinkUnavailable(code: Int32, errno: Int32)
    /// The kernel has no generic netlink family by this name (for nl80211: no cfg80211 loaded).
    case familyNotFound(String)
    /// No network interface by this name (if_nametoindex failed).
    case noSuchInterface(String)
    /// The interface exists but nl80211 does not list it (wired, loopback, …).
    case notWireless(String)
    /// A libnl call failed: libnl's positive NLE_* code, and the kernel's errno (0 if none came).
    case netlink(operation: String, code: Int32, errno: Int32)

    /// The operation that failed, for logs and metrics labels.
    public var operation: String {
        switch self {
        case .netlinkUnavailable: return "connecting a generic netlink socket"
        case .familyNotFound(let name): return "resolving generic netlink family \(name)"
        case .noSuchInterface(let name): return "looking up interface \(name)"
        case .notWireless(let name): return "finding \(name) among nl80211 interfaces"
        case .netlink(let operation, _, _): return operation
        }
    }

    public var description: String {
        switch self {
        case .netlinkUnavailable(let code, let errno):
            return "generic netlink unavailable: \(Self.explain(code: code, errno: errno)) \(operation)"
                + (errno == EPROTONOSUPPORT ? " (qemu-user does not emulate NETLINK_GENERIC)" : "")
        case .familyNotFound("nl80211"):
            return "nl80211: no such generic netlink family: the kernel has no cfg80211/nl80211 "
                + "(no Wi-Fi stack or driver loaded)"
        case .familyNotFound(let name):
            return "\(name): no such generic netlink family in this kernel"
        case .noSuchInterface(let name):
            return "\(name): no such network interface"
        case .notWireless(let name):
            return "\(name): not a wireless interface (nl80211 does not list it)"
        case .netlink(let operation, let code, let errno):
            return "\(Self.explain(code: code, errno: errno)) \(operation)"
        }
    }

    /// "protocol not supported (EPROTONOSUPPORT)" from the kernel's errno, else libnl's message.
    static func explain(code: Int32, errno: Int32) -> String {
        if errno != 0 {
            let name = gs_nl_errno_name(errno).map { String(cString: $0) } ?? "errno \(errno)"
            return "\(String(cString: strerror(errno)).lowercased()) (\(name))"
        }
        return "\(String(cString: nl_geterror(code)).lowercased()) (libnl error \(code))"
    }
}
