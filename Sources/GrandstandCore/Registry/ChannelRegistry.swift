/// The channel list, sans I/O: fed SAP packets (with the source address they came from and the
/// capture time) and configured static channels; applies the license policy and the streamer
/// allow-list, follows session versions, deletions and timeouts, keeps ids stable and unique,
/// and reports every change. See docs/ingest.md for the rules.
public struct ChannelRegistry: Sendable {
    /// RFC 8866 §5.2: a session is identified by the `o=` fields other than the version; the
    /// announcing address is added so two streamers cannot withdraw each other's sessions.
    struct SessionKey: Hashable, Sendable {
        var streamer: IPAddress
        var username: String
        var sessionID: String
        var networkType: String
        var addressType: String
        var address: String

        init(streamer: IPAddress, origin: SessionDescription.Origin) {
            self.streamer = streamer
            username = origin.username
            sessionID = origin.sessionID
            networkType = origin.networkType
            addressType = origin.addressType
            address = origin.address
        }
    }

    struct Entry: Sendable {
        var id: String
        var lastSeen: Int64
        var interval: Int64?
    }

    /// An announcement the policy refused, kept (until it times out) for diagnostics.
    public struct Refusal: Sendable, Equatable {
        public var name: String
        public var streamer: IPAddress
        public var reason: String
        public var lastSeen: Int64
    }

    /// Bounds on what announcements can make the registry hold (a venue has tens of channels):
    /// new sessions beyond `maximumSessions` are ignored and counted, refusals beyond
    /// `maximumRefusals` are counted but not kept.
    public static let maximumSessions = 1024
    public static let maximumRefusals = 256

    public let policy: RegistryPolicy
    private var byID: [String: Channel] = [:]
    /// Ids of channels listed outside the registry (programs split out of a multiplex), which
    /// new channels must not take.
    private var reserved: Set<String> = []
    private var sessions: [SessionKey: Entry] = [:]
    private var refusals: [SessionKey: Refusal] = [:]
    public private(set) var counters = RegistryCounters()
    /// Announcements received per channel id (kept after the channel goes).
    public private(set) var announcementsPerChannel: [String: Int] = [:]

    public init(policy: RegistryPolicy, staticChannels: [GatewayConfig.StaticChannel] = []) {
        self.policy = policy
        for configured in staticChannels {
            let id = ChannelSlug.unique(configured.name, taken: takenIDs)
            let kind: ChannelKind = switch configured.kind {
            case .video: .video
            case .data: .data
            case .file: .file
            }
            var channel = Channel(id: id, name: configured.name, channelText: configured.channelText,
                                  kind: kind, bandwidthKbps: configured.bandwidthKbps,
                                  group: configured.group, port: configured.port, source: configured.source, fec: configured.fec,
                                  rtp: configured.rtp, origin: .config)
            channel.fluteTSI = configured.fluteTSI
            channel.srt = configured.srt
            channel.programs = configured.programs
            channel.secondPath = configured.secondPath
            byID[id] = channel
        }
    }

    private var takenIDs: Set<String> { Set(byID.keys).union(reserved) }

    /// A new id from `name` for a channel listed outside the registry, kept from other channels
    /// until `release(id:)`.
    mutating func reserveID(for name: String) -> String {
        let id = ChannelSlug.unique(name, taken: takenIDs)
        reserved.insert(id)
        return id
    }

    mutating func release(id: String) { reserved.remove(id) }

    /// Every listed channel, sorted by id.
    public var channels: [Channel] { byID.values.sorted { $0.id < $1.id } }

    public func channel(id: String) -> Channel? { byID[id] }

    /// Refused announcements still being repeated, sorted by name then streamer.
    public var refused: [Refusal] {
        refusals.values.sorted { ($0.name, $0.streamer) < ($1.name, $1.streamer) }
    }

    /// Handles one SAP packet (the UDP payload) sent from `source` at `now`. Returns the
    /// changes, or the reason the packet was dropped (`sap_*`, `sdp_invalid`).
    public mutating func receiveSAP(_ bytes: ArraySlice<UInt8>, from source: IPAddress, at now: Int64)
        -> Result<[ChannelChange], DropReason> {
        let message: SAPMessage
        switch SAPMessage.parse(bytes) {
        case .failure(let reason):
            if reason == .sapVersionMismatch { counters.versionMismatches += 1 }
            return .failure(reason)
        case .success(let parsed):
            message = parsed
        }
        switch message.kind {
        case .deletion:
            counters.deletionsReceived += 1
            guard let origin = SDPParser.origin(in: String(decoding: message.payload, as: UTF8.self)) else {
                return .failure(.sdpInvalid)
            }
            return .success(delete(SessionKey(streamer: source, origin: origin)))
        case .announcement:
            counters.announcementsReceived += 1
            if message.wasCompressed { counters.compressedAnnouncementsReceived += 1 }
            let sdp: SessionDescription
            do {
                sdp = try SDPParser.parse(message.payload[...])
            } catch {
                // An SDP version other than 0 is an announcement version we do not know.
                if message.payload.starts(with: Array("v=".utf8)), !message.payload.starts(with: Array("v=0".utf8)) {
                    counters.versionMismatches += 1
                }
                return .failure(.sdpInvalid)
            }
            return .success(announce(sdp, sap: message, from: source, at: now))
        }
    }

    /// Admits, refreshes, updates or refuses one parsed announcement.
    mutating func announce(_ sdp: SessionDescription, sap: SAPMessage?, from source: IPAddress, at now: Int64) -> [ChannelChange] {
        let key = SessionKey(streamer: source, origin: sdp.origin)
        let announcement = ChannelAnnouncement(sdp: sdp, sap: sap)
        var reason: String? = nil
        if !policy.allows(streamer: source) {
            counters.streamersRefused += 1
            reason = "streamer \(source) is not in streamers.allow"
        } else if let problem = policy.licenseProblem(announcement) {
            counters.licenseMismatches += 1
            reason = problem
        }
        if let reason {
            if refusals[key] != nil || refusals.count < Self.maximumRefusals {
                refusals[key] = Refusal(name: announcement.name, streamer: source, reason: reason, lastSeen: now)
            }
            guard let entry = sessions.removeValue(forKey: key), let channel = byID.removeValue(forKey: entry.id) else { return [] }
            return [.removed(channel, reason: .refused)]
        }
        refusals[key] = nil
        if var entry = sessions[key], let current = byID[entry.id] {
            if now > entry.lastSeen { entry.interval = now - entry.lastSeen }
            entry.lastSeen = max(entry.lastSeen, now)
            sessions[key] = entry
            announcementsPerChannel[entry.id, default: 0] += 1
            guard current.sessionVersion != announcement.sessionVersion else { return [] }
            var updated = Self.channel(from: announcement, sdp: sdp, id: entry.id, streamer: source)
            updated.programs = policy.programs
            byID[entry.id] = updated
            counters.updates += 1
            return updated == current ? [] : [.updated(updated)]
        }
        guard sessions.count < Self.maximumSessions else {
            counters.overLimit += 1
            return []
        }
        let id = ChannelSlug.unique(announcement.name, taken: takenIDs)
        var channel = Self.channel(from: announcement, sdp: sdp, id: id, streamer: source)
        channel.programs = policy.programs
        byID[id] = channel
        sessions[key] = Entry(id: id, lastSeen: now, interval: nil)
        announcementsPerChannel[id, default: 0] += 1
        return [.added(channel)]
    }

    private mutating func delete(_ key: SessionKey) -> [ChannelChange] {
        let wasRefused = refusals.removeValue(forKey: key) != nil
        guard let entry = sessions.removeValue(forKey: key), let channel = byID.removeValue(forKey: entry.id) else {
            if !wasRefused { counters.unknownDeletions += 1 }
            return []
        }
        counters.deleted += 1
        return [.removed(channel, reason: .deleted)]
    }

    /// Retires sessions not re-announced within their timeout (RegistryPolicy.retireTimeout).
    public mutating func tick(now: Int64) -> [ChannelChange] {
        var changes: [ChannelChange] = []
        let expired = sessions.filter { now - $0.value.lastSeen > policy.retireTimeout(interval: $0.value.interval) }
        for (key, entry) in expired.sorted(by: { $0.value.id < $1.value.id }) {
            sessions[key] = nil
            if let channel = byID.removeValue(forKey: entry.id) {
                counters.timedOut += 1
                changes.append(.removed(channel, reason: .timeout))
            }
        }
        refusals = refusals.filter { now - $0.value.lastSeen <= policy.retireMinimumNanoseconds }
        return changes
    }

    /// The Channel for an admitted announcement: the chosen media's transport and FEC attribute.
    static func channel(from announcement: ChannelAnnouncement, sdp: SessionDescription, id: String, streamer: IPAddress) -> Channel {
        let media = ChannelAnnouncement.chooseMedia(sdp)?.0
        var kind = announcement.kind
        var fec = FECParameters.none
        if let value = media?.attribute(FECParameters.attributeName) ?? sdp.attribute(FECParameters.attributeName) {
            switch FECParameters.parse(value, mediaPort: announcement.port) {
            case .success(let parameters): fec = parameters
            case .failure(let error): if kind.isSupported { kind = .unsupported(reason: error.description) }
            }
        }
        let rtp = media?.proto.uppercased().hasPrefix("RTP/") ?? false
        // FEC (SMPTE 2022-1, Reed-Solomon windows) works on RTP sequence numbers: a plain-UDP
        // channel announced with it is refused rather than carried without the repair it asks for.
        if !rtp, kind == .video, fec != .none {
            kind = .unsupported(reason: "FEC on plain UDP: FEC needs RTP sequence numbers (send RTP/AVP 33)")
        }
        var channel = Channel(id: id, name: announcement.name, channelText: announcement.channelText, kind: kind,
                              sessionNum: announcement.sessionID, sessionVersion: announcement.sessionVersion,
                              bandwidthKbps: announcement.bandwidthKbps, venueName: announcement.license?.venueName,
                              contentOwner: announcement.license?.contentOwner, appDeveloper: announcement.license?.appDeveloper,
                              group: announcement.group, port: announcement.port, source: announcement.sourceFilter,
                              ttl: announcement.ttl, fec: fec, rtp: rtp, streamer: streamer, origin: .sap)
        if kind == .file { FluteTSIAttribute.apply(media: media, sdp: sdp, to: &channel) }
        if kind == .video, let duplicate = announcement.duplicate { channel.secondPath = SecondPath(endpoint: duplicate) }
        return channel
    }
}

/// The registry's totals; JSON names follow DESIGN.md "Stats names" (StadiumVision keys kept verbatim).
public struct RegistryCounters: Sendable, Equatable {
    /// `num_channel_announcements_received`: SAP announcement packets (not deletions) that parsed.
    public var announcementsReceived = 0
    /// `compressedChannelAnnouncementsReceived`
    public var compressedAnnouncementsReceived = 0
    /// `num_channel_announcement_version_mismatches`: SAP version ≠ 1 or SDP version ≠ 0.
    public var versionMismatches = 0
    /// `num_license_key_mismatches`: announcements refused by the license policy.
    public var licenseMismatches = 0
    /// `num_streamer_mismatches`: announcements from streamers not in `streamers.allow`.
    public var streamersRefused = 0
    public var deletionsReceived = 0
    public var unknownDeletions = 0
    public var deleted = 0
    public var timedOut = 0
    public var updates = 0
    /// `num_channels_over_limit`: new sessions ignored because `maximumSessions` are listed.
    public var overLimit = 0

    public var fields: [(String, Int)] {
        [("num_channel_announcements_received", announcementsReceived),
         ("compressedChannelAnnouncementsReceived", compressedAnnouncementsReceived),
         ("num_channel_announcement_version_mismatches", versionMismatches),
         ("num_license_key_mismatches", licenseMismatches),
         ("num_streamer_mismatches", streamersRefused),
         ("num_channel_deletions_received", deletionsReceived),
         ("num_channel_deletions_unknown", unknownDeletions),
         ("num_channels_deleted", deleted),
         ("num_channels_timed_out", timedOut),
         ("num_channel_updates", updates),
         ("num_channels_over_limit", overLimit)]
    }
}
