extension HealthTransition {
    /// The journald event of this transition (docs/logging.md): `service-up`, `service-down`
    /// with `GRANDSTAND_REASONS` (names) and `GRANDSTAND_REASONS_BITMAP`, `in-venue`/`out-of-venue`.
    public var event: GatewayEvent {
        switch self {
        case .serviceUp(let previous):
            return GatewayEvent(.serviceUp, "service up (was down: \(previous.text))", fields: [
                ("REASONS", "none"), ("REASONS_BITMAP", "0"), ("PREVIOUS_REASONS", previous.text),
            ])
        case .serviceDown(let reasons, let previous):
            return GatewayEvent(.serviceDown, "service down: \(reasons.text)", fields: [
                ("REASONS", reasons.text), ("REASONS_BITMAP", String(reasons.rawValue)), ("PREVIOUS_REASONS", previous.text),
                ("BLINK_CODE", reasons.blinkCode.map(String.init) ?? "0"),
            ])
        case .venue(true, let via):
            return GatewayEvent(.inVenue, "in venue (\(via ?? "unknown"))", fields: [("VIA", via ?? "unknown")])
        case .venue(false, _):
            return GatewayEvent(.outOfVenue, "left the venue (no venue AP associated, no allowed streamer heard)")
        }
    }
}
