import CGSSystemd
#if canImport(Glibc)
import Glibc
#endif

/// RAUC's installer service on the system bus (`de.pengutronix.rauc.Installer` at `/`, the
/// `rauc-service` package): install a bundle, read progress, slot status, mark slots. Each call
/// opens its own bus connection and closes it (sd-bus objects are not shared across threads);
/// calls are a few per second at most.
public struct RAUCInstaller: Sendable {
    static let destination = "de.pengutronix.rauc", path = "/", interface = "de.pengutronix.rauc.Installer"

    /// One slot of `GetSlotStatus`: its name (`rootfs.0`) and RAUC's facts about it, numbers as
    /// text (`bootname`, `boot-status`, `state`, `bundle.version`, `installed.timestamp`, …).
    public struct Slot: Sendable, Equatable {
        public var name: String
        public var facts: [String: String]
    }

    /// The bus to use instead of the system bus (`unix:path=…`): a private bus with its own
    /// `rauc service`, as the host tests run one.
    public let busAddress: String?

    public init(busAddress: String? = nil) {
        self.busAddress = busAddress
    }

    /// Starts installing `source` (a path or an http(s) URL RAUC streams from); returns when RAUC
    /// has accepted the job. Progress and outcome: `operation`, `progress`, `lastError`.
    public func installBundle(_ source: String) throws(BusError) {
        try call("InstallBundle") { (message: OpaquePointer) throws(BusError) in
            try BusError.check(source.withCString { sd_bus_message_append_basic(message, Self.type("s"), $0) }, "InstallBundle source")
            try BusError.check(sd_bus_message_open_container(message, Self.type("a"), "{sv}"), "InstallBundle args")
            try BusError.check(sd_bus_message_close_container(message), "InstallBundle args")
        } read: { _ throws(BusError) in }
    }

    /// `Mark(state, slot)`: `good` or `bad` (or `active`) for `booted`, `other` or a slot name.
    /// Returns RAUC's message.
    @discardableResult
    public func mark(_ state: String, slot: String = "booted") throws(BusError) -> String {
        var text = ""
        try call("Mark") { (message: OpaquePointer) throws(BusError) in
            for value in [state, slot] {
                try BusError.check(value.withCString { sd_bus_message_append_basic(message, Self.type("s"), $0) }, "Mark argument")
            }
        } read: { (reply: OpaquePointer) throws(BusError) in
            _ = try Self.readString(reply)
            text = try Self.readString(reply)
        }
        return text
    }

    /// `GetSlotStatus`: every slot with its facts.
    public func slotStatus() throws(BusError) -> [Slot] {
        var slots: [Slot] = []
        try call("GetSlotStatus") { _ throws(BusError) in } read: { (reply: OpaquePointer) throws(BusError) in
            try BusError.check(sd_bus_message_enter_container(reply, Self.type("a"), "(sa{sv})"), "GetSlotStatus array")
            while try BusError.check(sd_bus_message_enter_container(reply, Self.type("r"), "sa{sv}"), "GetSlotStatus slot") > 0 {
                let name = try Self.readString(reply)
                slots.append(Slot(name: name, facts: try Self.readDictionary(reply)))
                try BusError.check(sd_bus_message_exit_container(reply), "GetSlotStatus slot")
            }
            try BusError.check(sd_bus_message_exit_container(reply), "GetSlotStatus array")
        }
        return slots
    }

    /// A string property: `Operation` (`idle`, `installing`), `LastError`, `BootSlot`, `Compatible`.
    public func property(_ name: String) throws(BusError) -> String {
        try withBus { (bus: OpaquePointer) throws(BusError) in
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var value: UnsafeMutablePointer<CChar>?
            try BusError.check(sd_bus_get_property_string(bus, Self.destination, Self.path, Self.interface, name, &error, &value),
                               "get \(name)", &error)
            defer { free(value) }
            return value.map { String(cString: $0) } ?? ""
        }
    }

    /// `Progress`: percent done, the step's message and its nesting depth.
    public func installProgress() throws(BusError) -> (percent: Int, message: String, depth: Int) {
        try withBus { (bus: OpaquePointer) throws(BusError) in
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var reply: OpaquePointer?
            try BusError.check(sd_bus_get_property(bus, Self.destination, Self.path, Self.interface, "Progress", &error, &reply, "(isi)"),
                               "get Progress", &error)
            defer { sd_bus_message_unref(reply) }
            guard let reply else { throw BusError("get Progress", errno: EBADMSG) }
            try BusError.check(sd_bus_message_enter_container(reply, Self.type("r"), "isi"), "Progress")
            let percent = try Self.readInt32(reply)
            let message = try Self.readString(reply)
            let depth = try Self.readInt32(reply)
            return (Int(percent), message, Int(depth))
        }
    }

    // MARK: sd-bus plumbing

    private func withBus<T>(_ body: (OpaquePointer) throws(BusError) -> T) throws(BusError) -> T {
        var bus: OpaquePointer?
        defer { sd_bus_flush_close_unref(bus) }
        if let busAddress {
            try BusError.check(sd_bus_new(&bus), "sd_bus_new")
            try BusError.check(busAddress.withCString { sd_bus_set_address(bus, $0) }, "sd_bus_set_address \(busAddress)")
            try BusError.check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
            try BusError.check(sd_bus_start(bus), "sd_bus_start \(busAddress)")
        } else {
            try BusError.check(sd_bus_open_system(&bus), "sd_bus_open_system")
        }
        guard let bus else { throw BusError("sd_bus_open_system", errno: ENOTCONN) }
        return try body(bus)
    }

    /// One method call: `append` writes the arguments, `read` parses the reply.
    func call(_ method: String, append: (OpaquePointer) throws(BusError) -> Void,
                      read: (OpaquePointer) throws(BusError) -> Void) throws(BusError) {
        try withBus { (bus: OpaquePointer) throws(BusError) in
            var message: OpaquePointer?
            try BusError.check(sd_bus_message_new_method_call(bus, &message, Self.destination, Self.path, Self.interface, method),
                               "\(method) message")
            defer { sd_bus_message_unref(message) }
            guard let message else { throw BusError("\(method) message", errno: ENOMEM) }
            try append(message)
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            var reply: OpaquePointer?
            try BusError.check(sd_bus_call(bus, message, 30_000_000, &error, &reply), method, &error)
            defer { sd_bus_message_unref(reply) }
            if let reply { try read(reply) }
        }
    }

    static func type(_ code: Unicode.Scalar) -> CChar { CChar(UInt8(code.value)) }

    static func readString(_ message: OpaquePointer) throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        try BusError.check(sd_bus_message_read_basic(message, type("s"), &value), "read string")
        return value.map { String(cString: $0) } ?? ""
    }

    private static func readInt32(_ message: OpaquePointer) throws(BusError) -> Int32 {
        var value: Int32 = 0
        try BusError.check(sd_bus_message_read_basic(message, type("i"), &value), "read int32")
        return value
    }

    /// An `a{sv}` as text: strings as they are, integers and booleans in decimal, a nested
    /// `a{sv}` flattened under its key (`update.version`); other types skipped.
    static func readDictionary(_ message: OpaquePointer, prefix: String = "") throws(BusError) -> [String: String] {
        var facts: [String: String] = [:]
        try BusError.check(sd_bus_message_enter_container(message, type("a"), "{sv}"), "dictionary")
        while try BusError.check(sd_bus_message_enter_container(message, type("e"), "sv"), "dictionary entry") > 0 {
            let key = try readString(message)
            var kind: CChar = 0
            var contents: UnsafePointer<CChar>?
            try BusError.check(sd_bus_message_peek_type(message, &kind, &contents), "variant type")
            var signature = contents.map { String(cString: $0) } ?? ""
            try BusError.check(sd_bus_message_enter_container(message, type("v"), contents), "variant")
            // RAUC's InspectBundle wraps its groups twice (`g_variant_dict_insert(…, "v", dict)`:
            // "update" → v → v → a{sv}, as `busctl` shows): unwrap variants in variants.
            var depth = 1
            while signature == "v" {
                try BusError.check(sd_bus_message_peek_type(message, &kind, &contents), "variant type")
                signature = contents.map { String(cString: $0) } ?? ""
                try BusError.check(sd_bus_message_enter_container(message, type("v"), contents), "variant")
                depth += 1
            }
            if signature == "a{sv}" {
                facts.merge(try readDictionary(message, prefix: prefix + key + "."), uniquingKeysWith: { $1 })
            } else if let value = try readBasic(message, signature) {
                facts[prefix + key] = value
            } else {
                try BusError.check(sd_bus_message_skip(message, nil), "skip variant")
            }
            for _ in 0..<depth { try BusError.check(sd_bus_message_exit_container(message), "variant") }
            try BusError.check(sd_bus_message_exit_container(message), "dictionary entry")
        }
        try BusError.check(sd_bus_message_exit_container(message), "dictionary")
        return facts
    }

    private static func readBasic(_ message: OpaquePointer, _ signature: String) throws(BusError) -> String? {
        switch signature {
        case "s", "o":
            return try readString(message)
        case "i", "b":
            var value: Int32 = 0
            try BusError.check(sd_bus_message_read_basic(message, type(signature.unicodeScalars.first!), &value), "read \(signature)")
            return signature == "b" ? (value != 0 ? "true" : "false") : String(value)
        case "u":
            var value: UInt32 = 0
            try BusError.check(sd_bus_message_read_basic(message, type("u"), &value), "read u")
            return String(value)
        case "t":
            var value: UInt64 = 0
            try BusError.check(sd_bus_message_read_basic(message, type("t"), &value), "read t")
            return String(value)
        case "x":
            var value: Int64 = 0
            try BusError.check(sd_bus_message_read_basic(message, type("x"), &value), "read x")
            return String(value)
        default:
            return nil
        }
    }
}
