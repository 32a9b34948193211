#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore
import Synchronization
import WiFi
import GrandstandIngest
import GrandstandServing

/// Gathers a `HealthObservation` for the health thread: channels and counters from the ingest
/// snapshot and the video channels, and the Wi-Fi station's link (operstate from sysfs, the
/// associated BSSID from nl80211, polled every `wifiPollNanoseconds`). Called on the health
/// thread; the poll's socket and last answer sit behind a lock all the same (uncontended).
final class HealthInputs: Sendable {
    private let wifiInterface: String?
    private let ingest: (@Sendable () -> IngestSnapshot)?
    private let gateway: Gateway
    private struct WiFiPoll {
        var socket: NL80211Socket?
        var wifi: HealthObservation.WiFi?
        var nextPoll: Int64 = 0
    }
    private let poll = Mutex(WiFiPoll())
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
        return poll.withLock { poll in
            guard now >= poll.nextPoll else { return poll.wifi }
            poll.nextPoll = now + wifiPollNanoseconds
            return Self.readWiFi(name, socket: &poll.socket, into: &poll.wifi)
        }
    }

    private static func readWiFi(_ name: String, socket: inout NL80211Socket?, into wifi: inout HealthObservation.WiFi?) -> HealthObservation.WiFi? {
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
