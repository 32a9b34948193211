import CGSGpiod
#if canImport(Glibc)
import Glibc
#endif

/// An open GPIO chip character device. Closed on deinit; line requests keep it alive.
/// Not Sendable: libgpiod handles are not thread-safe, so one owner (task or actor) uses it.
public final class GPIOChip {
    let handle: OpaquePointer
    /// Device path it was opened with ("/dev/gpiochip0").
    public let path: String
    /// Kernel chip name ("gpiochip0").
    public let name: String
    /// Driver label ("pl061", "gpio-mockup-A", …).
    public let label: String
    public let lineCount: Int

    /// Opens a chip by device path.
    public convenience init(path: String) throws {
        var handle: OpaquePointer?
        let err = gs_gpiod_chip_open_path(path, &handle)
        try self.init(handle: handle, err: err, path: path)
    }

    /// Opens a chip by name ("gpiochip0" → /dev/gpiochip0), as libgpiod's tools do.
    public convenience init(name: String) throws {
        var handle: OpaquePointer?
        let err = gs_gpiod_chip_open_name(name, &handle)
        try self.init(handle: handle, err: err, path: "/dev/" + name)
    }

    /// Opens "gpiochipN" by name, anything containing "/" by path.
    public static func open(_ chip: String) throws -> GPIOChip {
        chip.contains("/") ? try GPIOChip(path: chip) : try GPIOChip(name: chip)
    }

    private init(handle: OpaquePointer?, err: Int32, path: String) throws {
        guard err == 0, let handle else {
            throw GPIOError(operation: .openChip, chipPath: path, errno: err == 0 ? EIO : err)
        }
        self.handle = handle
        self.path = String(cString: gs_gpiod_chip_path(handle))
        self.name = String(cString: gs_gpiod_chip_name(handle))
        self.label = String(cString: gs_gpiod_chip_label(handle))
        self.lineCount = Int(gs_gpiod_chip_num_lines(handle))
    }

    deinit { gs_gpiod_chip_close(handle) }

    /// The kernel's current view of line `offset` (free or used, by whom, direction, polarity).
    public func lineInfo(_ offset: UInt32) throws -> GPIOLineInfo {
        var info = gs_gpiod_line_info()
        let err = gs_gpiod_chip_line_info(handle, offset, &info)
        guard err == 0 else { throw GPIOError(operation: .lineInfo(offset: offset), chipPath: path, errno: err) }
        return GPIOLineInfo(offset: info.offset, name: string(fromCArray: info.name),
                            consumer: string(fromCArray: info.consumer), isUsed: info.used,
                            isOutput: info.output, isActiveLow: info.active_low)
    }

    /// Requests `lines` as outputs labelled `consumer` (shown by gpioinfo); held until released.
    public func requestOutputs(_ lines: [GPIOOutputLine], consumer: String) throws -> GPIOLineRequest {
        try GPIOLineRequest(chip: self, lines: lines, consumer: consumer)
    }
}
