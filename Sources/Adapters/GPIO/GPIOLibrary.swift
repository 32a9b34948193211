import CGSGpiod

/// Facts about the libgpiod this binary was built against and runs with.
public enum GPIOLibrary {
    /// The running libgpiod's version string ("1.6.3" on bookworm, "2.2.1" on trixie).
    public static var version: String { String(cString: gs_gpiod_version()) }
    /// The libgpiod API the shim was compiled for: 1 (bookworm) or 2 (trixie).
    public static var apiMajor: Int { Int(gs_gpiod_api_major()) }
}

/// The kernel's view of one line, whoever holds it.
public struct GPIOLineInfo: Equatable, Sendable {
    public let offset: UInt32
    /// Line name from the device tree / driver, "" when unnamed.
    public let name: String
    /// Consumer label of whoever requested the line, "" when free.
    public let consumer: String
    public let isUsed: Bool
    public let isOutput: Bool
    public let isActiveLow: Bool
}

/// One line to request as an output: its offset, initial logical value and polarity.
public struct GPIOOutputLine: Equatable, Sendable {
    public let offset: UInt32
    public let initialValue: Bool
    /// Logical "on" drives the line low (common for LEDs wired to the supply).
    public let activeLow: Bool

    public init(offset: UInt32, initialValue: Bool = false, activeLow: Bool = false) {
        self.offset = offset
        self.initialValue = initialValue
        self.activeLow = activeLow
    }
}

/// Reads a fixed-size C char array (imported as a tuple) up to its NUL.
func string<T>(fromCArray tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
