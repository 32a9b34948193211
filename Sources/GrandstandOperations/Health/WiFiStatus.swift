import GrandstandCore
import WiFi

/// The Wi-Fi part of `GET /api/v1/stats` (docs/wifi.md), read through nl80211 at request time:
/// `wifi` (the uplink `network.wifiInterface`, as in reports, with `session_link_indicator`),
/// `wifi_error`, `wifi_interfaces` (every wireless interface of the box: an AP-mode one with its
/// station count and per-station signal) and `in_venue` from the service state.
public struct WiFiStatus: Sendable {
    public let uplink: String?
    public let accessPoints: [GatewayConfig.WiFiAccessPoint]
    /// Whether the service state says in venue (nil without a health thread).
    public let inVenue: @Sendable () -> Bool?

    public init(config: GatewayConfig, inVenue: @escaping @Sendable () -> Bool?) {
        uplink = config.network.wifiInterface
        accessPoints = config.network.wifiApInfo
        self.inVenue = inVenue
    }

    /// The members to add to the stats document.
    public func members() -> [(String, JSONValue)] {
        var uplinkInfo: JSONValue = .null
        var reason: String? = uplink == nil ? "no network.wifiInterface configured" : nil
        var all: [JSONValue] = []
        do {
            let socket = try NL80211Socket()
            for interface in try socket.interfaces().sorted(by: { $0.name < $1.name }) {
                do {
                    let info = try socket.linkInfo(interface: interface.name, accessPoints: accessPoints)
                    all.append(info.json)
                    if interface.name == uplink { uplinkInfo = Self.withIndicator(info) }
                } catch {
                    all.append(.object([("interface", .string(interface.name)), ("error", .string("\(error)"))]))
                    if interface.name == uplink { reason = "\(error)" }
                }
            }
            if let uplink, case .null = uplinkInfo, reason == nil {
                // Not listed by nl80211: say why by name (no such interface, not wireless).
                uplinkInfo = Self.withIndicator(try socket.linkInfo(interface: uplink, accessPoints: accessPoints))
            }
        } catch {
            if uplink != nil { reason = "\(error)" }
        }
        return [("wifi", uplinkInfo), ("wifi_error", reason.map(JSONValue.string) ?? .null),
                ("wifi_interfaces", .array(all)), ("in_venue", inVenue().map(JSONValue.bool) ?? .null)]
    }

    /// The link info's JSON plus its signal grade (0–10, docs/reporting.md).
    private static func withIndicator(_ info: WiFiLinkInfo) -> JSONValue {
        guard case .object(var members) = info.json else { return info.json }
        members.append(("signal_grade", .number(Double(info.signalDBm.map(LinkIndicator.signalGrade) ?? 0))))
        return .object(members)
    }

    public init(uplink: String? = nil, accessPoints: [GatewayConfig.WiFiAccessPoint], inVenue: @escaping @Sendable () -> Bool?) {
        self.uplink = uplink
        self.accessPoints = accessPoints
        self.inVenue = inVenue
    }
}

extension JSONValue {
    /// An object with `members` appended (other values are returned unchanged).
    public func merging(_ members: [(String, JSONValue)]) -> JSONValue {
        guard case .object(let existing) = self, !members.isEmpty else { return self }
        return .object(existing + members.map { (key: $0.0, value: $0.1) })
    }
}
