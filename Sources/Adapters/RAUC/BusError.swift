import CGSSystemd
#if canImport(Glibc)
import Glibc
#endif

/// An sd-bus call failed: the operation, the errno it returned, and the D-Bus error name and
/// message when the peer answered with one (RAUC's refusal of a bundle arrives that way).
public struct BusError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let errno: Int32
    /// `org.gtk.GDBus.UnmappedGError.Quark._…` or `org.freedesktop.DBus.Error.ServiceUnknown`.
    public let name: String?
    public let message: String?

    public init(_ operation: String, errno: Int32, name: String? = nil, message: String? = nil) {
        self.operation = operation
        self.errno = errno < 0 ? -errno : errno
        self.name = name
        self.message = message
    }

    public var description: String {
        "\(operation): \(message ?? String(cString: strerror(errno))) (errno \(errno))"
    }

    /// libsystemd's "negative errno on failure" as a throw, with the D-Bus error if one was set.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String,
                      _ error: UnsafeMutablePointer<sd_bus_error>? = nil) throws(BusError) -> Int32 {
        guard result < 0 else { return result }
        let name = error?.pointee.name.map { String(cString: $0) }
        let message = error?.pointee.message.map { String(cString: $0) }
        throw BusError(operation(), errno: result, name: name, message: message)
    }
}
