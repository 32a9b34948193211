import CGSNetlink
import GrandstandCore

extension WiFiInterfaceType {
    /// The report's `wifi.mode` text (iw's names).
    public var reportName: String {
        switch self {
        case .adhoc: return "ibss"
        case .station: return "station"
        case .accessPoint: return "ap"
        case .apVLAN: return "ap-vlan"
        case .wds: return "wds"
        case .monitor: return "monitor"
        case .meshPoint: return "mesh-point"
        case .p2pClient: return "p2p-client"
        case .p2pGroupOwner: return "p2p-go"
        case .p2pDevice: return "p2p-device"
        case .ocb: return "ocb"
        case .nan: return "nan"
        case .other(let raw): return "type-\(raw)"
        }
    }
}

extension NL80211Socket {
    /// The Wi-Fi state of interface `name` for reports: on a station (uplink) interface the
    /// associated AP's BSSID, SSID, frequency, signal, bitrates, retries/failed, connected time
    /// and its name from `accessPoints`; on an AP interface its clients with their signal.
    /// Throws `noSuchInterface`, `notWireless` or the nl80211 failure.
    public func linkInfo(interface name: String, accessPoints: [GatewayConfig.WiFiAccessPoint] = []) throws -> WiFiLinkInfo {
        let ifindex = try interfaceIndex(name)
        guard let interface = try interfaces().first(where: { $0.ifindex == ifindex }) else {
            throw WiFiError.notWireless(name)
        }
        let stations = try stations(ifindex: ifindex)
        var info = WiFiLinkInfo(interface: name, mode: interface.type.reportName)
        info.mac = interface.mac?.description
        info.ssid = interface.ssidText
        info.frequencyMHz = interface.frequencyMHz.map(Int.init)
        switch interface.type {
        case .accessPoint, .p2pGroupOwner:
            info.bssid = interface.mac?.description
            info.associated = !stations.isEmpty
            info.stations = stations.map { WiFiLinkInfo.StationSignal(mac: $0.mac.description, signalDBm: $0.signalDBm) }
        default:
            // A managed interface has one station entry: the AP it is associated with.
            guard let ap = stations.first else { break }
            info.associated = true
            info.bssid = ap.mac.description
            info.signalDBm = ap.signalDBm
            info.signalAverageDBm = ap.signalAverageDBm
            info.txBitrateKbps = ap.txBitrateKbps.map(Int.init)
            info.rxBitrateKbps = ap.rxBitrateKbps.map(Int.init)
            info.txRetries = ap.txRetries.map(Int.init)
            info.txFailed = ap.txFailed.map(Int.init)
            info.connectedSeconds = ap.connectedSeconds.map(Int.init)
        }
        info.apName = WiFiLinkInfo.apName(bssid: info.bssid, in: accessPoints)
        return info
    }
}
