#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore
import WiFi
import GrandstandIngest
import GrandstandServing

/// Gathers a `HealthObservation` for the health thread: channels and counters from the ingest
/// snapshot and the video channels, and the Wi-Fi station's link (operstate from sysfs, the
/// associated BSSID from nl80211, polled every `wifiPollNanoseconds`). Health thread only.
final class HealthInputs {
    private let wifiInterface: String?
    private let ingest: (@Sendable () -> IngestSnapshot)?
    private let gateway: Gateway
    private var socket: NL80211Socket?
    private var wifi: HealthObservation.WiFi?
    private var nextWiFiPoll: Int64 = 0
    private let wifiPollNanoseconds: Int64 = 2_000_000_000

    init(config: GatewayConfig, ingest: (@Sendable () -> IngestSnapshot)?, gateway: Gateway) {
        wifiInterface = config.network.wifiInterface
        self.ingest = ingest
        self.gateway = gateway
    }

    func observation(_ lifecycle: HealthObservation.Lifecycle, now: Int64) -> HealthObservation {
        let snapshot = ingest?()
        var counters: [String: HealthObservation.ChannelCounters] = [:]
        for (id, table) in gateway.stats(merging: snapshot?.stats).channels { counters[id] = HealthObservation.ChannelCounters(stats: table) }
        let channels = snapshot?.channels ?? []
        return HealthObservation(lifecycle: lifecycle, wifi: pollWiFi(now: now),
                                 validChannels: channels.filter { $0.kind.isSupported }.count, channels: counters,
                                 allowedStreamerHeard: channels.contains { $0.origin == .sap && $0.kind.isSupported })
    }

    /// Packets captured so far (the activity LED's input).
    func packetCount() -> Int { ingest.flatMap { $0().stats.total("pcap_received") } ?? 0 }

    private func pollWiFi(now: Int64) -> HealthObservation.WiFi? {
        guard let name = wifiInterface else { return nil }
        guard now >= nextWiFiPoll else { return wifi }
        nextWiFiPoll = now + wifiPollNanoseconds
        let operstate = FileManager.default.contents(atPath: "/sys/class/net/\(name)/operstate")
            .flatMap { String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init) }
        var bssid: String?
        do {
            if socket == nil { socket = try NL80211Socket() }
            bssid = try socket?.stations(interface: name).first?.mac.description
        } catch {
            socket = nil
        }
        // "dormant" is up but not yet authorised (802.1X); only "up" carries traffic.
        wifi = HealthObservation.WiFi(interfaceUp: operstate == "up", bssid: bssid)
        return wifi
    }
}
