import CGSGpiod
#if canImport(Glibc)
import Glibc
#endif

/// A failed libgpiod call: the errno it gave, what we were doing, and on which chip.
public struct GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the adapter was doing when the call failed.
    public enum Operation: Equatable, Sendable {
        case openChip
        case lineInfo(offset: UInt32)
        case requestLines(offsets: [UInt32])
        case setValues(offsets: [UInt32])
        case getValues(offsets: [UInt32])
    }

    public let operation: Operation
    /// Device path of the chip ("/dev/gpiochip0").
    public let chipPath: String
    /// The errno libgpiod (or the kernel) reported.
    public let errno: Int32

    public init(operation: Operation, chipPath: String, errno: Int32) {
        self.operation = operation
        self.chipPath = chipPath
        self.errno = errno
    }

    /// Symbolic errno ("ENOENT"), or "errno N" when the C library has no name for it.
    public var errnoName: String {
        gs_gpiod_errno_name(errno).map { String(cString: $0) } ?? "errno \(errno)"
    }

    /// e.g. "gpiochip7: no such chip (ENOENT) opening /dev/gpiochip7".
    public var description: String {
        "\(chipName): \(reason) (\(errnoName)) \(doing) \(chipPath)"
    }

    private var chipName: String {
        chipPath.split(separator: "/").last.map(String.init) ?? chipPath
    }

    private var reason: String {
        switch (operation, errno) {
        case (.openChip, ENOENT): return "no such chip"
        case (.openChip, ENOTTY), (.openChip, ENODEV): return "not a GPIO chip"
        case (_, EACCES), (_, EPERM): return "permission denied"
        case (.requestLines, EBUSY): return "line already in use"
        case (.requestLines, EINVAL): return "invalid request (offset out of range, duplicate, or not 1…64 lines)"
        case (.lineInfo, EINVAL): return "no such line"
        case (_, EBADF): return "lines already released"
        default: return String(cString: strerror(errno)).lowercased()
        }
    }

    private var doing: String {
        switch operation {
        case .openChip: return "opening"
        case .lineInfo(let offset): return "reading info of line \(offset) on"
        case .requestLines(let offsets): return "requesting lines \(offsets) on"
        case .setValues(let offsets): return "setting lines \(offsets) on"
        case .getValues(let offsets): return "reading lines \(offsets) on"
        }
    }
}
