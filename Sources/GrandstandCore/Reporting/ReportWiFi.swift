/// The uplink's Wi-Fi state as the WiFi adapter reads it from nl80211, in report terms.
/// Pure data: the adapter fills it, the report builder and the link indicator read it.
public struct WiFiLinkInfo: Sendable, Equatable {
    public var interface: String
    /// nl80211 interface type name ("station", "ap", …).
    public var mode: String
    public var mac: String?
    /// Associated (station mode: the AP's station entry exists).
    public var associated = false
    public var bssid: String?
    public var ssid: String?
    public var frequencyMHz: Int?
    public var signalDBm: Int?
    public var signalAverageDBm: Int?
    public var txBitrateKbps: Int?
    public var rxBitrateKbps: Int?
    public var txRetries: Int?
    public var txFailed: Int?
    public var connectedSeconds: Int?
    /// The venue AP's name from `network.wifiApInfo`, matched by BSSID.
    public var apName: String?
    /// AP mode: every associated client with its last signal.
    public var stations: [StationSignal] = []

    public struct StationSignal: Sendable, Equatable {
        public var mac: String
        public var signalDBm: Int?
        public init(mac: String, signalDBm: Int?) {
            self.mac = mac
            self.signalDBm = signalDBm
        }
    }

    public init(interface: String, mode: String) {
        self.interface = interface
        self.mode = mode
    }

    /// The configured name of the AP with `bssid` (compared as MAC addresses, any case/separator).
    public static func apName(bssid: String?, in table: [GatewayConfig.WiFiAccessPoint]) -> String? {
        guard let bssid, let wanted = MACAddress(bssid) else { return nil }
        return table.first { MACAddress($0.bssid) == wanted }?.name
    }

    /// The report's `wifi` object (keys documented in docs/reporting.md).
    public var json: JSONValue {
        func int(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var members: [(key: String, value: JSONValue)] = [
            ("interface", .string(interface)), ("mode", .string(mode)), ("mac", text(mac)),
            ("associated", .bool(associated)), ("bssid", text(bssid)), ("ssid", text(ssid)),
            ("ap_name", text(apName)), ("frequency_mhz", int(frequencyMHz)), ("signal_dbm", int(signalDBm)),
            ("signal_avg_dbm", int(signalAverageDBm)), ("tx_bitrate_kbps", int(txBitrateKbps)),
            ("rx_bitrate_kbps", int(rxBitrateKbps)), ("tx_retries", int(txRetries)), ("tx_failed", int(txFailed)),
            ("connected_seconds", int(connectedSeconds)),
        ]
        if mode == "ap" {
            members.append(("station_count", .number(Double(stations.count))))
            members.append(("stations", .array(stations.map {
                .object([("mac", .string($0.mac)), ("signal_dbm", int($0.signalDBm))])
            })))
        }
        return .object(members)
    }
}
