/// What the ingest pipeline asks the rest of the gateway to do.
public enum IngestAction: Sendable, Equatable {
    /// The channel list changed (added / updated / removed with a reason).
    case channelsChanged([ChannelChange])
    /// n × 188 bytes of a video channel's transport stream, in order, after recovery.
    case transportStream(channelID: String, packets: ArraySlice<UInt8>, timestampNanoseconds: Int64)
    /// RTP packets lost and not recovered before the next `.transportStream`.
    case gap(channelID: String, lostPackets: Int, timestampNanoseconds: Int64)
    /// One whole data-channel message (the RTP payload, or the UDP payload for `udp` channels).
    case dataMessage(channelID: String, payload: ArraySlice<UInt8>, timestampNanoseconds: Int64)
}

/// What the pipeline is built from: the registry policy, static channels, the SAP groups and
/// the recovery stage per channel.
public struct IngestConfiguration: Sendable {
    public var policy: RegistryPolicy
    public var staticChannels: [GatewayConfig.StaticChannel]
    public var sapGroups: [IPAddress]
    public var recovery: RecoveryFactory

    public init(policy: RegistryPolicy = .permissive, staticChannels: [GatewayConfig.StaticChannel] = [],
                sapGroups: [IPAddress] = GatewayConfig.Discovery.wellKnownSAPGroups,
                recovery: @escaping RecoveryFactory = PassThroughRecovery.factory) {
        self.policy = policy
        self.staticChannels = staticChannels
        self.sapGroups = sapGroups
        self.recovery = recovery
    }

    /// The configuration file's policy, static channels and SAP groups.
    public init(config: GatewayConfig, recovery: @escaping RecoveryFactory = PassThroughRecovery.factory) {
        self.init(policy: RegistryPolicy(config: config), staticChannels: config.channels,
                  sapGroups: config.discovery.sapGroups, recovery: recovery)
    }
}

/// The ingest path as a sans-I/O state machine, the same for live capture and replay: captured
/// frames (or datagrams) in, actions out. SAP on port 9875 of the SAP groups feeds the
/// registry; datagrams to a channel's (group, port) feed its receiver; everything else is
/// counted (`unknown_destination`). Never traps on any input: malformed packets are counted per
/// `DropReason` and dropped.
public struct IngestPipeline: Sendable {
    enum Route: Sendable { case media(String), repair(String) }

    public private(set) var registry: ChannelRegistry
    public let sapGroups: [IPAddress]
    private let sapGroupSet: Set<IPAddress>
    private let recoveryFactory: RecoveryFactory
    private var routes: [Endpoint: Route] = [:]
    private var receivers: [String: ChannelReceiver] = [:]
    private var channelStats: [String: ChannelStats] = [:]
    private var announced: [String: (sessionID: String, title: String)] = [:]
    private var pending: [ChannelChange]
    private var framesReceived = 0
    private var datagramsReceived = 0
    private var sapPackets = 0
    private var unknownDestination = 0
    private var frameDrops = DropCounts()
    private var sapDrops = DropCounts()

    public init(configuration: IngestConfiguration = IngestConfiguration()) {
        registry = ChannelRegistry(policy: configuration.policy, staticChannels: configuration.staticChannels)
        sapGroups = configuration.sapGroups
        sapGroupSet = Set(configuration.sapGroups)
        recoveryFactory = configuration.recovery
        pending = registry.channels.map { .added($0) }
        apply(pending)
    }

    /// The registry's channels, sorted by id.
    public var channels: [Channel] { registry.channels }

    /// Every (group, port, source) to capture and join: the SAP groups on 9875, then each
    /// supported channel's media and FEC repair ports. Sorted, without duplicates.
    public var endpoints: [IngestEndpoint] {
        let sap = sapGroups.map { IngestEndpoint(group: $0, port: SAPMessage.port) }
        return Array(Set(sap + channels.flatMap(\.endpoints))).sorted()
    }

    /// One captured frame: link/IP/UDP decoding, then `ingest(_:)`.
    public mutating func ingest(frame: ArraySlice<UInt8>, link: LinkLayer, timestampNanoseconds: Int64) -> [IngestAction] {
        framesReceived += 1
        switch FrameDecoder.decode(frame, link: link, timestampNanoseconds: timestampNanoseconds) {
        case .failure(let reason):
            frameDrops.add(reason)
            return flushPending()
        case .success(let datagram):
            return ingest(datagram)
        }
    }

    /// One UDP datagram.
    public mutating func ingest(_ datagram: Datagram) -> [IngestAction] {
        datagramsReceived += 1
        var actions = flushPending()
        let destination = datagram.destination
        if destination.port == SAPMessage.port, sapGroupSet.contains(destination.address) {
            sapPackets += 1
            switch registry.receiveSAP(datagram.payload, from: datagram.source.address, at: datagram.timestampNanoseconds) {
            case .failure(let reason):
                sapDrops.add(reason)
            case .success(let changes):
                if !changes.isEmpty {
                    apply(changes)
                    actions.append(.channelsChanged(changes))
                }
            }
            return actions
        }
        guard let route = routes[destination] else {
            unknownDestination += 1
            return actions
        }
        switch route {
        case .media(let id):
            guard var receiver = receivers.removeValue(forKey: id) else { return actions }
            receiver.media(datagram, stats: &channelStats[id, default: ChannelStats()], into: &actions)
            receivers[id] = receiver
        case .repair(let id):
            guard var receiver = receivers.removeValue(forKey: id) else { return actions }
            receiver.repair(datagram, stats: &channelStats[id, default: ChannelStats()], into: &actions)
            receivers[id] = receiver
        }
        return actions
    }

    /// Time passes: SAP sessions retire on timeout; recovery stages may close windows.
    public mutating func tick(nowNanoseconds: Int64) -> [IngestAction] {
        var actions = flushPending()
        let changes = registry.tick(now: nowNanoseconds)
        if !changes.isEmpty {
            apply(changes)
            actions.append(.channelsChanged(changes))
        }
        for id in receivers.keys.sorted() {
            guard var receiver = receivers.removeValue(forKey: id) else { continue }
            receiver.tick(now: nowNanoseconds, stats: &channelStats[id, default: ChannelStats()], into: &actions)
            receivers[id] = receiver
        }
        return actions
    }

    /// The static channels' `added` changes, reported with the first output.
    private mutating func flushPending() -> [IngestAction] {
        guard !pending.isEmpty else { return [] }
        defer { pending = [] }
        return [.channelsChanged(pending)]
    }

    /// Follows channel changes: receivers created, reset (when what they receive changed) or
    /// dropped; routes rebuilt. Stats stay, keyed by id.
    private mutating func apply(_ changes: [ChannelChange]) {
        for change in changes {
            let channel = change.channel
            switch change {
            case .removed:
                retireReceiver(channel.id)
            case .added, .updated:
                announced[channel.id] = (channel.sessionNum ?? "", channel.name)
                if channelStats[channel.id] == nil { channelStats[channel.id] = ChannelStats() }
                let current = receivers[channel.id]
                if channel.kind.isSupported {
                    if current == nil || current?.kind != channel.kind || current?.rtp != channel.rtp || current?.source != channel.source
                        || current?.fec != channel.fec {
                        retireReceiver(channel.id)
                        receivers[channel.id] = ChannelReceiver(channel: channel, recovery: recoveryFactory(channel))
                    }
                } else {
                    retireReceiver(channel.id)
                }
            }
        }
        routes = [:]
        for channel in channels where receivers[channel.id] != nil {
            guard let group = channel.group else { continue }
            let media = Endpoint(address: group, port: channel.port)
            if routes[media] == nil { routes[media] = .media(channel.id) }
            for port in channel.fec.repairPorts(mediaPort: channel.port) {
                let repair = Endpoint(address: group, port: port)
                if routes[repair] == nil { routes[repair] = .repair(channel.id) }
            }
        }
    }

    /// Drops a channel's receiver, keeping its counters in the channel's stats.
    private mutating func retireReceiver(_ id: String) {
        guard let receiver = receivers.removeValue(forKey: id) else { return }
        receiver.snapshot(into: &channelStats[id, default: ChannelStats()])
        channelStats[id]?.carry()
    }

    /// A snapshot of every counter (see docs/ingest.md "Stats").
    public var stats: IngestStats {
        var total: [String: JSONValue] = [:]
        var channels: [String: [String: JSONValue]] = [:]
        var sums: [String: Int] = [:]
        for (name, _) in ChannelStats().fields where !name.hasPrefix("rtp_jitter") { sums[name] = 0 }
        var drops = frameDrops
        for (reason, count) in sapDrops.sorted { drops.add(reason, count) }
        for id in channelStats.keys.sorted() {
            var stats = channelStats[id] ?? ChannelStats()
            receivers[id]?.snapshot(into: &stats)
            var table: [String: JSONValue] = [:]
            for (name, value) in stats.fields {
                table[name] = .number(Double(value))
                if !name.hasPrefix("rtp_jitter") { sums[name, default: 0] += value }
            }
            for (reason, count) in stats.drops.sorted { drops.add(reason, count) }
            table["drops"] = IngestStats.dropsObject(stats.drops)
            table["num_channel_announcements_received"] = .number(Double(registry.announcementsPerChannel[id] ?? 0))
            table["announcement_session_id"] = .string(announced[id]?.sessionID ?? "")
            table["announcement_session_title"] = .string(announced[id]?.title ?? "")
            table["listed"] = .bool(registry.channel(id: id) != nil)
            channels[id] = table
        }
        for (name, value) in sums { total[name] = .number(Double(value)) }
        for (name, value) in registry.counters.fields { total[name] = .number(Double(value)) }
        total["frames_received"] = .number(Double(framesReceived))
        total["datagrams_received"] = .number(Double(datagramsReceived))
        total["sap_packets_received"] = .number(Double(sapPackets))
        total["unknown_destination"] = .number(Double(unknownDestination))
        total["channels_listed"] = .number(Double(registry.channels.count))
        total["channels_refused"] = .number(Double(registry.refused.count))
        total["drops"] = IngestStats.dropsObject(drops)
        total["malformed_dropped"] = .number(Double(drops.sorted.filter { $0.reason.isMalformed }.reduce(0) { $0 + $1.count }))
        return IngestStats(total: total, channels: channels)
    }
}
