/// What a board offers the gateway (board/NAME/board.json): its status LEDs as GPIO lines and
/// its network interface names. The daemon drives LEDs by logical name, never by line number.
public struct BoardDescription: Sendable, Equatable {
    /// One LED: the gpiochip (name like `gpiochip0` or a /dev path), the line offset, and
    /// whether the LED lights when the line is driven low.
    public struct LEDLine: Sendable, Equatable {
        public var chip: String
        public var line: UInt32
        public var activeLow: Bool
    }

    public var name: String
    /// Logical LED name (`service`, `fault`, `activity`) to its line.
    public var leds: [String: LEDLine]
    /// Logical interface role (`uplink`, `wifi`) to interface name.
    public var interfaces: [String: String]

    public static func decode(_ bytes: [UInt8]) throws(ConfigError) -> BoardDescription {
        try ConfigError.decoding(bytes, with: decode)
    }

    static func decode(_ document: JSONValue, _ reader: inout JSONReader) -> BoardDescription? {
        guard let root = reader.object(document, at: .root, known: ["name", "leds", "interfaces"]) else { return nil }
        let name = reader.string(root["name"], at: root.path("name"), required: true)
        var leds: [String: LEDLine] = [:]
        if case .object(let members)? = root["leds"], reader.object(root["leds"], at: root.path("leds"), known: Set(members.map(\.key))) != nil {
            for (ledName, value) in members {
                let path = root.path("leds").appending(ledName)
                guard let led = reader.object(value, at: path, known: ["chip", "line", "activeLow"]) else { continue }
                let chip = reader.string(led["chip"], at: led.path("chip"), required: true)
                let line = reader.integer(led["line"], at: led.path("line"), in: 0...511)
                if led["line"] == nil { reader.report(led.path("line"), "required integer is missing") }
                let activeLow = reader.bool(led["activeLow"], at: led.path("activeLow")) ?? false
                if let chip, let line { leds[ledName] = LEDLine(chip: chip, line: UInt32(line), activeLow: activeLow) }
            }
        } else if root["leds"] != nil {
            _ = reader.object(root["leds"], at: root.path("leds"), known: [])
        }
        var interfaces: [String: String] = [:]
        if case .object(let members)? = root["interfaces"] {
            for (role, value) in members {
                if let interface = reader.string(value, at: root.path("interfaces").appending(role)) { interfaces[role] = interface }
            }
        } else if root["interfaces"] != nil {
            _ = reader.object(root["interfaces"], at: root.path("interfaces"), known: [])
        }
        guard let name else { return nil }
        return BoardDescription(name: name, leds: leds, interfaces: interfaces)
    }
}
