import CGSGpiod
#if canImport(Glibc)
import Glibc
#endif

/// Output lines held on one chip. Released by `release()` or on deinit. Values are logical:
/// `true` means active, which is a low level on an active-low line.
public final class GPIOLineRequest {
    /// Kept alive while the lines are held (libgpiod v1 lines belong to their chip).
    public let chip: GPIOChip
    public let lines: [GPIOOutputLine]
    public var offsets: [UInt32] { lines.map(\.offset) }
    private var handle: OpaquePointer?

    init(chip: GPIOChip, lines: [GPIOOutputLine], consumer: String) throws {
        self.chip = chip
        self.lines = lines
        let offsets = lines.map(\.offset)
        let values = lines.map { Int32($0.initialValue ? 1 : 0) }
        let activeLow = lines.map(\.activeLow)
        var handle: OpaquePointer?
        let err = gs_gpiod_request_output(chip.handle, consumer, offsets, values, activeLow, lines.count, &handle)
        guard err == 0, let handle else {
            throw GPIOError(operation: .requestLines(offsets: offsets), chipPath: chip.path, errno: err == 0 ? EIO : err)
        }
        self.handle = handle
    }

    deinit { release() }

    /// Gives the lines back to the kernel. Later calls throw EBADF; calling twice is harmless.
    public func release() {
        gs_gpiod_request_release(handle)
        handle = nil
    }

    /// Sets every line, in request order.
    public func setValues(_ values: [Bool]) throws {
        let op = GPIOError.Operation.setValues(offsets: offsets)
        guard values.count == lines.count else { throw error(op, EINVAL) }
        let ints = values.map { Int32($0 ? 1 : 0) }
        try call(op) { gs_gpiod_request_set_values($0, ints) }
    }

    /// Reads every line, in request order.
    public func values() throws -> [Bool] {
        var ints = [Int32](repeating: 0, count: lines.count)
        try call(.getValues(offsets: offsets)) { gs_gpiod_request_get_values($0, &ints) }
        return ints.map { $0 != 0 }
    }

    /// Sets one requested line (EINVAL if `offset` is not in this request).
    public func setValue(_ value: Bool, offset: UInt32) throws {
        try call(.setValues(offsets: [offset])) { gs_gpiod_request_set_value($0, offset, value ? 1 : 0) }
    }

    /// Reads one requested line (EINVAL if `offset` is not in this request).
    public func value(offset: UInt32) throws -> Bool {
        var v: Int32 = 0
        try call(.getValues(offsets: [offset])) { gs_gpiod_request_get_value($0, offset, &v) }
        return v != 0
    }

    private func call(_ op: GPIOError.Operation, _ body: (OpaquePointer) -> Int32) throws {
        guard let handle else { throw error(op, EBADF) }
        let err = body(handle)
        if err != 0 { throw error(op, err) }
    }

    private func error(_ op: GPIOError.Operation, _ err: Int32) -> GPIOError {
        GPIOError(operation: op, chipPath: chip.path, errno: err)
    }
}
