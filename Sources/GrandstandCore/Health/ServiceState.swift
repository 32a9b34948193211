/// Why the service is down, as a bitmap (StadiumVision Mobile's service-down reasons; values in
/// docs/health.md). An empty set means the service is up.
public struct ServiceDownReasons: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// FEC failure rate, loss after recovery or dropped/undecodable frames above the thresholds.
    public static let poorQuality = ServiceDownReasons(rawValue: 1 << 0)
    /// The Wi-Fi interface is missing, down, or not associated with an access point.
    public static let wifiDown = ServiceDownReasons(rawValue: 1 << 1)
    /// No valid (licensed, allowed, supported) channel is listed.
    public static let noChannels = ServiceDownReasons(rawValue: 1 << 2)
    /// The gateway is starting or stopping.
    public static let notRunning = ServiceDownReasons(rawValue: 1 << 3)

    /// Every reason with its name and blink code, in the order a technician should fix them
    /// (the first present one is what the LEDs blink).
    public static let catalog: [(reason: ServiceDownReasons, name: String, blinks: Int)] = [
        (.notRunning, "not-running", 4), (.wifiDown, "wifi-down", 2),
        (.noChannels, "no-channels", 3), (.poorQuality, "poor-quality", 1),
    ]

    /// Names of the reasons present, in bit order ("poor-quality", "wifi-down", …).
    public var names: [String] {
        Self.catalog.sorted { $0.reason.rawValue < $1.reason.rawValue }.filter { contains($0.reason) }.map(\.name)
    }

    /// The blink count of the most fundamental reason present; nil when up.
    public var blinkCode: Int? { Self.catalog.first { contains($0.reason) }?.blinks }

    /// `poor-quality,wifi-down` (or `none`), for log fields.
    public var text: String { isEmpty ? "none" : names.joined(separator: ",") }
}

/// The gateway's service state: up unless a reason holds it down, plus whether the box is in
/// its venue (associated to a configured venue AP, or an allowed streamer heard).
public struct ServiceState: Sendable, Equatable {
    public var reasons: ServiceDownReasons
    public var inVenue: Bool
    /// What holds nothing down but a technician should see: `path-down:CHANNEL` while one of a
    /// channel's ST 2022-7 paths is silent (the other still delivers), `srt-disconnected:CHANNEL`
    /// while an SRT channel has no peer.
    public var warnings: [String] = []

    public init(reasons: ServiceDownReasons, inVenue: Bool = false) {
        self.reasons = reasons
        self.inVenue = inVenue
    }

    public var isUp: Bool { reasons.isEmpty }

    /// `{"state":"up|down","reasons":[…],"reasonsBitmap":N,"inVenue":…}`.
    public var json: [(String, JSONValue)] {
        [("state", .string(isUp ? "up" : "down")), ("reasons", .array(reasons.names.map(JSONValue.string))),
         ("reasonsBitmap", .number(Double(reasons.rawValue))), ("inVenue", .bool(inVenue)),
         ("warnings", .array(warnings.map(JSONValue.string)))]
    }
}
