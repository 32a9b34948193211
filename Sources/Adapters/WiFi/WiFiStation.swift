import CGSNetlink
import GrandstandCore

/// One peer of an interface as NL80211_CMD_GET_STATION reports it. On a client (managed)
/// interface the single station is the access point, so `mac` is the BSSID.
public struct WiFiStation: Equatable, Sendable {
    public let mac: MACAddress
    /// Last received signal, dBm.
    public let signalDBm: Int?
    /// Averaged received signal, dBm.
    public let signalAverageDBm: Int?
    /// Current transmit / receive bitrate, kbit/s.
    public let txBitrateKbps: UInt32?
    public let rxBitrateKbps: UInt32?
    public let rxBytes: UInt64?
    public let txBytes: UInt64?
    public let rxPackets: UInt32?
    public let txPackets: UInt32?
    public let txRetries: UInt32?
    public let txFailed: UInt32?
    public let connectedSeconds: UInt32?
    public let inactiveMilliseconds: UInt32?

    init?(_ attributes: NetlinkAttributes) {
        guard let mac = attributes.bytes(NL80211_ATTR_MAC).flatMap(MACAddress.init(bytes:)) else { return nil }
        self.mac = mac
        let info = NetlinkAttributes(nestedIn: attributes[NL80211_ATTR_STA_INFO],
                                     maxType: NL80211_STA_INFO_MAX.rawValue)
        // Signals are u8 attributes holding a signed dBm value.
        signalDBm = info?.u8(NL80211_STA_INFO_SIGNAL).map { Int(Int8(bitPattern: $0)) }
        signalAverageDBm = info?.u8(NL80211_STA_INFO_SIGNAL_AVG).map { Int(Int8(bitPattern: $0)) }
        txBitrateKbps = Self.bitrate(info?[NL80211_STA_INFO_TX_BITRATE])
        rxBitrateKbps = Self.bitrate(info?[NL80211_STA_INFO_RX_BITRATE])
        // Byte counters: the 64-bit attribute when the kernel sends it, else the 32-bit one.
        rxBytes = info?.u64(NL80211_STA_INFO_RX_BYTES64) ?? info?.u32(NL80211_STA_INFO_RX_BYTES).map(UInt64.init)
        txBytes = info?.u64(NL80211_STA_INFO_TX_BYTES64) ?? info?.u32(NL80211_STA_INFO_TX_BYTES).map(UInt64.init)
        rxPackets = info?.u32(NL80211_STA_INFO_RX_PACKETS)
        txPackets = info?.u32(NL80211_STA_INFO_TX_PACKETS)
        txRetries = info?.u32(NL80211_STA_INFO_TX_RETRIES)
        txFailed = info?.u32(NL80211_STA_INFO_TX_FAILED)
        connectedSeconds = info?.u32(NL80211_STA_INFO_CONNECTED_TIME)
        inactiveMilliseconds = info?.u32(NL80211_STA_INFO_INACTIVE_TIME)
    }

    /// A nested rate-info attribute's bitrate in kbit/s (the kernel counts in 100 kbit/s).
    private static func bitrate(_ attribute: UnsafeMutablePointer<nlattr>?) -> UInt32? {
        guard let rate = NetlinkAttributes(nestedIn: attribute, maxType: NL80211_RATE_INFO_MAX.rawValue),
              let units = rate.u32(NL80211_RATE_INFO_BITRATE32) ?? rate.u16(NL80211_RATE_INFO_BITRATE).map(UInt32.init)
        else { return nil }
        return units * 100
    }
}

extension NL80211Socket {
    /// Every station of interface `ifindex` (NL80211_CMD_GET_STATION dump).
    public func stations(ifindex: UInt32) throws -> [WiFiStation] {
        try stations(ifindex: ifindex, operation: "dumping nl80211 stations of interface \(ifindex)")
    }

    /// Every station of the interface named `interface` ("wlan0").
    public func stations(interface: String) throws -> [WiFiStation] {
        try stations(ifindex: interfaceIndex(interface), operation: "dumping nl80211 stations of \(interface)")
    }

    private func stations(ifindex: UInt32, operation: String) throws -> [WiFiStation] {
        var found: [WiFiStation] = []
        try dump(NL80211_CMD_GET_STATION, ifindex: ifindex, operation: operation) { attributes in
            if let station = WiFiStation(attributes) { found.append(station) }
        }
        return found
    }
}
