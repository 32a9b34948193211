import GrandstandCore

/// What the daemon journals when it requests the board's LEDs at start: one `leds-unavailable`
/// per chip it cannot use, and one `leds-held` naming the LEDs it holds (the positive proof the
/// VM check `leds-boot-order` reads; chips taken later by the 5 s retry log `leds-available`).
public enum LEDStartupEvents {
    public static func events(held: [String], unavailable: [(chip: String, error: String)]) -> [GatewayEvent] {
        var events = unavailable.map {
            GatewayEvent(.ledsUnavailable, "status LEDs on \($0.chip) unavailable: \($0.error)", fields: [("CHIP", $0.chip)])
        }
        if !held.isEmpty {
            let names = held.sorted()
            events.append(GatewayEvent(.ledsHeld, "status LEDs \(names.joined(separator: ", ")) held at start",
                                       fields: [("LEDS", names.joined(separator: ","))]))
        }
        return events
    }
}
