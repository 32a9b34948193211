/// What the ingest pipeline asks the rest of the gateway to do.
public enum IngestAction: Sendable, Equatable {
    /// The channel list changed (added / updated / removed with a reason).
    case channelsChanged([ChannelChange])
    /// n × 188 bytes of a video channel's transport stream, in order, after recovery.
    case transportStream(channelID: String, packets: ArraySlice<UInt8>, timestampNanoseconds: Int64)
    /// RTP packets lost and not recovered before the next `.transportStream` (plain-UDP video:
    /// the TS packets its continuity counters show missing).
    case gap(channelID: String, lostPackets: Int, timestampNanoseconds: Int64)
    /// One whole data-channel message (the RTP payload, or the UDP payload for `udp` channels).
    case dataMessage(channelID: String, payload: ArraySlice<UInt8>, timestampNanoseconds: Int64)
    /// One UDP payload of a file channel (an ALC/LCT packet for the FLUTE receiver, docs/files.md).
    case fileDatagram(channelID: String, payload: ArraySlice<UInt8>, timestampNanoseconds: Int64)
    /// A channel's ST 2022-7 paths changed: one went down or came back, was refused, or (plain
    /// UDP) the output failed over.
    case path(channelID: String, event: SeamlessMerger.Event, timestampNanoseconds: Int64)
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
    /// Where a (group, port) leads: the media or a repair port of the channel in `lanes[index]`.
    enum Route: Sendable { case media(Int), secondary(Int), repair(Int) }

    /// One channel id's receiver (nil while the channel is not received) and its counters, which
    /// outlive receivers. Kept in an array that routes index, so a datagram costs one dictionary
    /// lookup (its destination) and the receiver is updated in place (docs/performance.md).
    struct Lane: Sendable {
        var receiver: ChannelReceiver?
        var stats = ChannelStats()

        /// True when the receiver has notices for the pipeline (`ChannelReceiver.notices`).
        mutating func media(_ datagram: Datagram, path: SeamlessMerger.Path = .primary, into actions: inout [IngestAction]) -> Bool {
            receiver?.media(datagram, path: path, stats: &stats, into: &actions)
            return receiver?.notices == true
        }

        /// The merge's events as actions.
        mutating func takePathEvents(at time: Int64, into actions: inout [IngestAction]) {
            guard let id = receiver?.id, let events = receiver?.merger?.takeEvents() else { return }
            for event in events { actions.append(.path(channelID: id, event: event, timestampNanoseconds: time)) }
        }

        /// True when the receiver has notices for the pipeline, as `media`.
        mutating func stream(_ payload: ArraySlice<UInt8>, path: SeamlessMerger.Path, time: Int64, into actions: inout [IngestAction]) -> Bool {
            receiver?.stream(payload, path: path, time: time, stats: &stats, into: &actions)
            return receiver?.notices == true
        }

        mutating func repair(_ datagram: Datagram, into actions: inout [IngestAction]) {
            receiver?.repair(datagram, stats: &stats, into: &actions)
        }

        mutating func tick(now: Int64, into actions: inout [IngestAction]) -> Bool {
            receiver?.tick(now: now, stats: &stats, into: &actions)
            return receiver?.notices == true
        }

        mutating func finish(now: Int64, into actions: inout [IngestAction]) {
            receiver?.finish(now: now, stats: &stats, into: &actions)
        }
    }

    public private(set) var registry: ChannelRegistry
    public let sapGroups: [IPAddress]
    private let sapGroupSet: Set<IPAddress>
    private let recoveryFactory: RecoveryFactory
    private var routes: [Endpoint: Route] = [:]
    /// Second paths captured on another interface, by interface name: only these are routed from
    /// that interface's frames (the same group and port may be another stream there).
    private var interfaceRoutes: [String: [Endpoint: Route]] = [:]
    /// Lanes are created when a channel id is first listed and never removed (stats stay).
    private var lanes: [Lane] = []
    private var laneIndex: [String: Int] = [:]
    private var announced: [String: (sessionID: String, title: String)] = [:]
    private var multiplexes = MultiplexListing()
    private var pending: [ChannelChange]
    private var framesReceived = 0
    private var datagramsReceived = 0
    private var sapPackets = 0
    private var unknownDestination = 0
    private var streamChunks = 0
    private var unroutedStreamChunks = 0
    private var frameDrops = DropCounts()
    private var sapDrops = DropCounts()

    public init(configuration: IngestConfiguration = IngestConfiguration()) {
        registry = ChannelRegistry(policy: configuration.policy, staticChannels: configuration.staticChannels)
        sapGroups = configuration.sapGroups
        sapGroupSet = Set(configuration.sapGroups)
        recoveryFactory = configuration.recovery
        var none: [IngestAction] = []   // no receiver exists yet: nothing to flush
        pending = []
        pending = apply(registry.channels.map { .added($0) }, now: 0, into: &none)
    }

    /// The listed channels, sorted by id: the registry's, with split multiplexes shown as such,
    /// and the programs split out of them.
    public var channels: [Channel] {
        let listed = registry.channels
        guard !multiplexes.isEmpty else { return listed }
        return (listed.map(multiplexes.present) + listed.flatMap { multiplexes.programs(of: $0.id).values }).sorted { $0.id < $1.id }
    }

    /// Every (group, port, source) to capture and join: the SAP groups on 9875, then each
    /// supported channel's media and FEC repair ports. Sorted, without duplicates.
    public var endpoints: [IngestEndpoint] {
        let sap = sapGroups.map { IngestEndpoint(group: $0, port: SAPMessage.port) }
        return Array(Set(sap + channels.flatMap(\.endpoints))).sorted()
    }

    /// Every (group, port, source) to capture and join on interface `name`, other than the main
    /// one: the second paths that arrive there (docs/ingest.md, "Two paths"). Sorted.
    public func endpoints(onInterface name: String) -> [IngestEndpoint] {
        Array(Set(channels.compactMap { $0.otherInterfaceEndpoint }.filter { $0.interface == name }.map(\.endpoint))).sorted()
    }

    /// The other capture interfaces the configured channels' second paths name, sorted.
    public var otherInterfaces: [String] {
        Array(Set(channels.compactMap { $0.otherInterfaceEndpoint?.interface })).sorted()
    }

    /// A frame captured on interface `name` (not the main one): only second paths that arrive
    /// there are routed; anything else is counted (`unknown_destination`). SAP is listened to on
    /// the main interface only.
    public mutating func ingest(frame: ArraySlice<UInt8>, link: LinkLayer, timestampNanoseconds: Int64, interface name: String,
                                into actions: inout [IngestAction], heard: (Datagram) -> Void = { _ in }) {
        framesReceived += 1
        switch FrameDecoder.decode(frame, link: link, timestampNanoseconds: timestampNanoseconds) {
        case .failure(let reason):
            frameDrops.add(reason)
            flushPending(into: &actions)
        case .success(let datagram):
            heard(datagram)
            ingest(datagram, interface: name, into: &actions)
        }
    }

    /// One UDP datagram received on interface `name` (not the main one).
    public mutating func ingest(_ datagram: Datagram, interface name: String, into actions: inout [IngestAction]) {
        datagramsReceived += 1
        flushPending(into: &actions)
        guard case .secondary(let index)? = interfaceRoutes[name]?[datagram.destination] else {
            unknownDestination += 1
            return
        }
        if lanes[index].media(datagram, path: .secondary, into: &actions) { attend(index, at: datagram.timestampNanoseconds, into: &actions) }
    }

    /// One captured frame: link/IP/UDP decoding, then `ingest(_:)`.
    public mutating func ingest(frame: ArraySlice<UInt8>, link: LinkLayer, timestampNanoseconds: Int64) -> [IngestAction] {
        var actions: [IngestAction] = []
        ingest(frame: frame, link: link, timestampNanoseconds: timestampNanoseconds, into: &actions)
        return actions
    }

    /// As above; `heard` sees each decoded datagram first (the live driver's silence watch).
    public mutating func ingest(frame: ArraySlice<UInt8>, link: LinkLayer, timestampNanoseconds: Int64,
                                heard: (Datagram) -> Void) -> [IngestAction] {
        var actions: [IngestAction] = []
        ingest(frame: frame, link: link, timestampNanoseconds: timestampNanoseconds, into: &actions, heard: heard)
        return actions
    }

    /// `ingest(frame:link:timestampNanoseconds:heard:)` appending to `actions`, so a caller that
    /// handles one frame at a time can reuse one array (no allocation per frame).
    public mutating func ingest(frame: ArraySlice<UInt8>, link: LinkLayer, timestampNanoseconds: Int64,
                                into actions: inout [IngestAction], heard: (Datagram) -> Void = { _ in }) {
        framesReceived += 1
        switch FrameDecoder.decode(frame, link: link, timestampNanoseconds: timestampNanoseconds) {
        case .failure(let reason):
            frameDrops.add(reason)
            flushPending(into: &actions)
        case .success(let datagram):
            heard(datagram)
            ingest(datagram, into: &actions)
        }
    }

    /// One UDP datagram.
    public mutating func ingest(_ datagram: Datagram) -> [IngestAction] {
        var actions: [IngestAction] = []
        ingest(datagram, into: &actions)
        return actions
    }

    /// `ingest(_:)` appending to `actions`.
    public mutating func ingest(_ datagram: Datagram, into actions: inout [IngestAction]) {
        datagramsReceived += 1
        flushPending(into: &actions)
        let destination = datagram.destination
        if destination.port == SAPMessage.port, sapGroupSet.contains(destination.address) {
            sapPackets += 1
            switch registry.receiveSAP(datagram.payload, from: datagram.source.address, at: datagram.timestampNanoseconds) {
            case .failure(let reason):
                sapDrops.add(reason)
            case .success(let changes):
                if !changes.isEmpty {
                    actions.append(.channelsChanged(apply(changes, now: datagram.timestampNanoseconds, into: &actions)))
                }
            }
            return
        }
        guard let route = routes[destination] else {
            unknownDestination += 1
            return
        }
        switch route {
        case .media(let index):
            if lanes[index].media(datagram, into: &actions) { attend(index, at: datagram.timestampNanoseconds, into: &actions) }
        case .secondary(let index):
            if lanes[index].media(datagram, path: .secondary, into: &actions) { attend(index, at: datagram.timestampNanoseconds, into: &actions) }
        case .repair(let index):
            lanes[index].repair(datagram, into: &actions)
        }
    }

    /// One chunk of TS for channel `channelID` from a stream transport (SRT), keyed by channel
    /// rather than (group, port): handled as a plain-UDP video datagram of that channel, under
    /// the same stats keys (a multi-program TS is split as on multicast); `path` `.secondary` for
    /// a channel whose second path is over SRT. Chunks for a channel that is not listed, not
    /// received or not plain video (or without an SRT second path) are counted
    /// (`stream_chunks_unrouted`) and dropped.
    public mutating func ingest(stream payload: ArraySlice<UInt8>, channelID: String, path: SeamlessMerger.Path = .primary,
                                timestampNanoseconds: Int64, into actions: inout [IngestAction]) {
        streamChunks += 1
        flushPending(into: &actions)
        guard let index = laneIndex[channelID], lanes[index].receiver?.takesStream(path) == true else {
            unroutedStreamChunks += 1
            return
        }
        if lanes[index].stream(payload, path: path, time: timestampNanoseconds, into: &actions) {
            attend(index, at: timestampNanoseconds, into: &actions)
        }
    }

    /// Time passes: SAP sessions retire on timeout; recovery stages may close windows.
    public mutating func tick(nowNanoseconds: Int64) -> [IngestAction] {
        var actions = flushPending()
        let changes = registry.tick(now: nowNanoseconds)
        if !changes.isEmpty {
            actions.append(.channelsChanged(apply(changes, now: nowNanoseconds, into: &actions)))
        }
        for id in laneIndex.keys.sorted() {
            guard let index = laneIndex[id], lanes[index].receiver != nil else { continue }
            if lanes[index].tick(now: nowNanoseconds, into: &actions) { attend(index, at: nowNanoseconds, into: &actions) }
        }
        return actions
    }

    /// The static channels' `added` changes, reported with the first output.
    private mutating func flushPending() -> [IngestAction] {
        var actions: [IngestAction] = []
        flushPending(into: &actions)
        return actions
    }

    private mutating func flushPending(into actions: inout [IngestAction]) {
        guard !pending.isEmpty else { return }
        actions.append(.channelsChanged(pending))
        pending = []
    }

    /// Follows channel changes: receivers created, reset (when what they receive changed) or
    /// dropped; routes rebuilt. Stats stay, keyed by id. A receiver that goes is flushed first
    /// (its recovery stage's held packets and losses land in `actions`, before the change).
    /// Returns the changes as listeners see them (`MultiplexListing.present`), with the programs
    /// of a multiplex whose receiver went removed before it.
    mutating func apply(_ changes: [ChannelChange], now: Int64, into actions: inout [IngestAction]) -> [ChannelChange] {
        var presented: [ChannelChange] = []
        for change in changes {
            let channel = change.channel
            switch change {
            case .removed(_, let reason):
                let shown = multiplexes.present(channel)
                retireReceiver(channel.id, now: now, into: &actions)
                presented += multiplexes.close(channel.id, reason: reason)
                multiplexes.forget(channel.id, registry: &registry)
                presented.append(.removed(shown, reason: reason))
            case .added, .updated:
                announced[channel.id] = (channel.sessionNum ?? "", channel.name)
                let index = lane(channel.id)
                let current = lanes[index].receiver
                if channel.kind.isSupported {
                    if current == nil || current?.kind != channel.kind || current?.rtp != channel.rtp || current?.source != channel.source
                        || current?.fec != channel.fec || current?.programs != channel.programs
                        || current?.secondPath != (channel.kind == .video ? channel.secondPath : nil) {
                        retireReceiver(channel.id, now: now, into: &actions)
                        lanes[index].receiver = ChannelReceiver(channel: channel, recovery: recoveryFactory(channel))
                    }
                } else {
                    retireReceiver(channel.id, now: now, into: &actions)
                }
                if lanes[index].receiver?.splitter?.isSplit != true { presented += multiplexes.close(channel.id, reason: .ended) }
                presented.append(change.presenting(multiplexes.present(channel)))
            }
        }
        routes = [:]
        interfaceRoutes = [:]
        for channel in registry.channels {
            guard let index = laneIndex[channel.id], lanes[index].receiver != nil, let group = channel.group else { continue }
            let media = Endpoint(address: group, port: channel.port)
            if routes[media] == nil { routes[media] = .media(index) }
            if let second = channel.secondPath, let endpoint = second.endpoint, lanes[index].receiver?.merger != nil {
                let destination = Endpoint(address: endpoint.group, port: endpoint.port)
                if let interface = second.interface {
                    if interfaceRoutes[interface, default: [:]][destination] == nil { interfaceRoutes[interface, default: [:]][destination] = .secondary(index) }
                } else if routes[destination] == nil {
                    routes[destination] = .secondary(index)
                }
            }
            for port in channel.fec.repairPorts(mediaPort: channel.port) {
                let repair = Endpoint(address: group, port: port)
                if routes[repair] == nil { routes[repair] = .repair(index) }
            }
        }
        return presented
    }

    /// Drops a channel's receiver, keeping its counters in the channel's stats. Its recovery
    /// stage is finished first: packets it held come out and open FEC windows are closed and
    /// counted (docs/fec.md, "Channel removal"), never dropped silently.
    private mutating func retireReceiver(_ id: String, now: Int64, into actions: inout [IngestAction]) {
        guard let index = laneIndex[id], lanes[index].receiver != nil else { return }
        lanes[index].finish(now: now, into: &actions)
        guard let receiver = lanes[index].receiver else { return }
        lanes[index].receiver = nil
        receiver.snapshot(into: &lanes[index].stats)
        lanes[index].stats.carry()
    }

    /// The receiver in `lanes[index]` has notices: its split programs are listed again, its
    /// path events become actions.
    private mutating func attend(_ index: Int, at time: Int64, into actions: inout [IngestAction]) {
        lanes[index].receiver?.notices = false
        if lanes[index].receiver?.splitter?.changed == true {
            lanes[index].receiver?.splitter?.acknowledge()
            relistPrograms(index, into: &actions)
        }
        lanes[index].takePathEvents(at: time, into: &actions)
    }

    /// The receiver in `lanes[index]` split its multiplex differently: its programs are listed
    /// again (MultiplexListing) and it learns their channel ids.
    private mutating func relistPrograms(_ index: Int, into actions: inout [IngestAction]) {
        guard let id = lanes[index].receiver?.id, let parent = registry.channel(id: id) else { return }
        let programs = lanes[index].receiver?.splitter?.programs ?? []
        let (changes, channels) = multiplexes.relist(parent, programs: programs, registry: &registry)
        lanes[index].receiver?.programChannels = channels
        if !changes.isEmpty { actions.append(.channelsChanged(changes)) }
    }

    /// The lane of channel `id`, created (without a receiver) when the id is new.
    private mutating func lane(_ id: String) -> Int {
        if let index = laneIndex[id] { return index }
        lanes.append(Lane())
        laneIndex[id] = lanes.count - 1
        return lanes.count - 1
    }

    /// A multiplex's split counters (docs/ingest.md, "Multi-program TS").
    static func splitFields(_ splitter: ProgramSplitter) -> [String: JSONValue] {
        let values = [splitter.programs.count, splitter.counters.sectionErrors, splitter.counters.programsOverLimit,
                      splitter.counters.packetsLeftOut]
        return Dictionary(uniqueKeysWithValues: zip(splitKeys, values.map { .number(Double($0)) }))
    }

    static let splitKeys = ["programs_split", "psi_section_errors", "programs_over_limit", "ts_packets_left_out"]

    /// A snapshot of every counter (see docs/ingest.md "Stats").
    public var stats: IngestStats {
        var total: [String: JSONValue] = [:]
        var channels: [String: [String: JSONValue]] = [:]
        var sums: [String: Int] = [:]
        for (name, _) in ChannelStats().fields where !ChannelStats.isLevel(name) { sums[name] = 0 }
        var drops = frameDrops
        for (reason, count) in sapDrops.sorted { drops.add(reason, count) }
        for id in laneIndex.keys.sorted() {
            guard let index = laneIndex[id] else { continue }
            var stats = lanes[index].stats
            lanes[index].receiver?.snapshot(into: &stats)
            var table: [String: JSONValue] = [:]
            for (name, value) in stats.fields {
                table[name] = .number(Double(value))
                if !ChannelStats.isLevel(name) { sums[name, default: 0] += value }
            }
            for (reason, count) in stats.drops.sorted { drops.add(reason, count) }
            table["drops"] = IngestStats.dropsObject(stats.drops)
            table["num_channel_announcements_received"] = .number(Double(registry.announcementsPerChannel[id] ?? 0))
            table["announcement_session_id"] = .string(announced[id]?.sessionID ?? "")
            table["announcement_session_title"] = .string(announced[id]?.title ?? "")
            table["listed"] = .bool(registry.channel(id: id) != nil)
            if let splitter = lanes[index].receiver?.splitter { table.merge(Self.splitFields(splitter)) { $1 } }
            channels[id] = table
            // A program's receive path is its multiplex's: the same counters, not summed twice.
            for (number, program) in multiplexes.programs(of: id) {
                var shown = table
                shown["multiplex"] = .string(id)
                shown["program_number"] = .number(Double(number))
                shown["announcement_session_title"] = .string(program.name)
                for key in Self.splitKeys { shown[key] = nil }
                channels[program.id] = shown
            }
        }
        for (name, value) in sums { total[name] = .number(Double(value)) }
        for (name, value) in registry.counters.fields { total[name] = .number(Double(value)) }
        total["frames_received"] = .number(Double(framesReceived))
        total["datagrams_received"] = .number(Double(datagramsReceived))
        total["sap_packets_received"] = .number(Double(sapPackets))
        total["unknown_destination"] = .number(Double(unknownDestination))
        total["stream_chunks_received"] = .number(Double(streamChunks))
        total["stream_chunks_unrouted"] = .number(Double(unroutedStreamChunks))
        total["channels_listed"] = .number(Double(registry.channels.count))
        total["channels_refused"] = .number(Double(registry.refused.count))
        total["drops"] = IngestStats.dropsObject(drops)
        total["malformed_dropped"] = .number(Double(drops.sorted.filter { $0.reason.isMalformed }.reduce(0) { $0 + $1.count }))
        return IngestStats(total: total, channels: channels)
    }
}
