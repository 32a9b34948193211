/// The gateway's configuration file (one JSON document). Shapes follow the StadiumVision SDK
/// where it has one: `license{venueName,contentOwner,appDeveloper}`, `network.wifiApInfo[{name,bssid}]`.
public struct GatewayConfig: Sendable, Equatable {
    /// The license triplet: only channels announced with the same three values are served.
    /// `required: false` also admits channels announced without any license attribute (a
    /// mismatching triplet is still refused).
    public struct License: Sendable, Equatable {
        public var venueName: String
        public var contentOwner: String
        public var appDeveloper: String
        public var required = true

        public var triplet: LicenseTriplet {
            LicenseTriplet(venueName: venueName, contentOwner: contentOwner, appDeveloper: appDeveloper)
        }
    }

    /// A venue access point this box sits beside; being associated with one means "in venue".
    public struct WiFiAccessPoint: Sendable, Equatable {
        public var name: String
        public var bssid: String
    }

    public struct Network: Sendable, Equatable {
        /// Where the venue multicast arrives (libpcap captures here, IGMP joins go out here).
        public var interface = "eth0"
        /// The Wi-Fi interface whose association and link quality are reported, if any.
        public var wifiInterface: String? = "wlan0"
        public var wifiApInfo: [WiFiAccessPoint] = []
    }

    public struct Listeners: Sendable, Equatable {
        public var fan = ListenAddress(host: "127.0.0.1", port: 8080)
        public var management = ListenAddress(host: "127.0.0.1", port: 8081)
        public var fanLimits = FanLimits()
    }

    public var license: License
    public var network = Network()
    public var listeners = Listeners()
    /// Bearer token the management API requires; nil: generated at first start into
    /// `stateDirectory/management-token` and reused (docs/management.md).
    public var managementToken: String?
    /// Where the daemon keeps what must survive restarts (the generated token). The unit's
    /// `StateDirectory=grandstand` makes `/var/lib/grandstand` writable for it.
    public var stateDirectory = GatewayConfig.defaultStateDirectory
    /// Events less important than this are not logged; changeable at run time.
    public var logLevel = LogLevel.info

    public static let defaultStateDirectory = "/var/lib/grandstand"
    /// Path of the board description (LED lines, interface names); nil runs without LEDs.
    public var boardPath: String?
    public var streamers = Streamers()
    public var channels: [StaticChannel] = []
    public var discovery = Discovery()
    /// FEC decoder limits (`fec` in the file; docs/fec.md).
    public var fec = FECDecoderConfiguration()
    /// Service-state thresholds and dwell (Health/HealthConfig.swift).
    public var health = HealthConfig()
    /// HLS timing, the rewind window and the decode health check (`hls`; docs/hls.md).
    public var hls = HLS()
    /// Periodic stats reports (`reporting` in the file; docs/reporting.md).
    public var reporting = Reporting()
    /// The fixtures feed for catalog search (`catalog`; docs/catalog.md).
    public var catalog = CatalogSource()
    /// File channels' object limits and on-disk assembly (`files`; docs/files.md).
    public var files = Files()
    /// The content cache and prefetch origin (`cache`; docs/cache.md); nil: no cache.
    public var cache: Cache?
    /// Automatic recordings (`records`; docs/records.md).
    public var records = Records()
    /// When a booted root slot is committed or given up (`update`; docs/updates.md).
    public var update = Update()
}

/// A numeric listen address `host:port` (`[v6]:port` for IPv6).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `1.2.3.4:80`, `0.0.0.0:8080` or `[::1]:8081`; nil when malformed.
    public init?(parsing text: String) {
        let hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
            guard hostPart.contains(":") else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            let octets = hostPart.split(separator: ".", omittingEmptySubsequences: false)
            guard octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }) else { return nil }
        }
        guard !hostPart.isEmpty, let port = UInt16(portPart) else { return nil }
        self.init(host: String(hostPart), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
