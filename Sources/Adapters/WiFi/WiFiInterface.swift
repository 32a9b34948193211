import CGSNetlink
#if canImport(Glibc)
import Glibc
import GrandstandCore
#endif

/// The nl80211 interface type (enum nl80211_iftype).
public enum WiFiInterfaceType: Equatable, Sendable {
    case adhoc, station, accessPoint, apVLAN, wds, monitor, meshPoint, p2pClient, p2pGroupOwner,
         p2pDevice, ocb, nan
    case other(UInt32)

    init(_ raw: UInt32) {
        let known: [(nl80211_iftype, WiFiInterfaceType)] = [
            (NL80211_IFTYPE_ADHOC, .adhoc), (NL80211_IFTYPE_STATION, .station),
            (NL80211_IFTYPE_AP, .accessPoint), (NL80211_IFTYPE_AP_VLAN, .apVLAN),
            (NL80211_IFTYPE_WDS, .wds), (NL80211_IFTYPE_MONITOR, .monitor),
            (NL80211_IFTYPE_MESH_POINT, .meshPoint), (NL80211_IFTYPE_P2P_CLIENT, .p2pClient),
            (NL80211_IFTYPE_P2P_GO, .p2pGroupOwner), (NL80211_IFTYPE_P2P_DEVICE, .p2pDevice),
            (NL80211_IFTYPE_OCB, .ocb), (NL80211_IFTYPE_NAN, .nan),
        ]
        self = known.first { $0.0.rawValue == raw }?.1 ?? .other(raw)
    }
}

/// One wireless interface as NL80211_CMD_GET_INTERFACE reports it.
public struct WiFiInterface: Equatable, Sendable {
    public let ifindex: UInt32
    public let name: String
    public let type: WiFiInterfaceType
    public let wiphy: UInt32?
    public let mac: MACAddress?
    /// Raw SSID bytes while associated / beaconing (SSIDs need not be UTF-8).
    public let ssid: [UInt8]?
    /// Operating channel centre frequency, when the interface is up on a channel.
    public let frequencyMHz: UInt32?

    /// The SSID as text, with invalid UTF-8 replaced.
    public var ssidText: String? { ssid.map { String(decoding: $0, as: UTF8.self) } }

    init?(_ attributes: NetlinkAttributes) {
        guard let ifindex = attributes.u32(NL80211_ATTR_IFINDEX) else { return nil }
        self.ifindex = ifindex
        name = attributes.string(NL80211_ATTR_IFNAME) ?? ""
        type = WiFiInterfaceType(attributes.u32(NL80211_ATTR_IFTYPE) ?? 0)
        wiphy = attributes.u32(NL80211_ATTR_WIPHY)
        mac = attributes.bytes(NL80211_ATTR_MAC).flatMap(MACAddress.init(bytes:))
        ssid = attributes.bytes(NL80211_ATTR_SSID)
        frequencyMHz = attributes.u32(NL80211_ATTR_WIPHY_FREQ)
    }
}

extension NL80211Socket {
    /// Every wireless interface of every radio (NL80211_CMD_GET_INTERFACE dump).
    public func interfaces() throws -> [WiFiInterface] {
        var found: [WiFiInterface] = []
        try dump(NL80211_CMD_GET_INTERFACE, operation: "dumping nl80211 interfaces") { attributes in
            if let interface = WiFiInterface(attributes) { found.append(interface) }
        }
        return found
    }
}

/// The kernel's index of a network interface, or `noSuchInterface`.
func interfaceIndex(_ name: String) throws -> UInt32 {
    let index = if_nametoindex(name)
    guard index != 0 else { throw WiFiError.noSuchInterface(name) }
    return index
}
