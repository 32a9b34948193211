/// Everything one report carries, gathered by the daemon at report time (the builder is pure).
public struct ReportInput: Sendable {
    public var deviceUUID: ReportUUID
    public var appSessionUUID: ReportUUID
    /// 1, 2, … per app session: lets the collector see gaps (dropped reports) and duplicates.
    public var sequence: UInt64
    /// Wall-clock time of the report, seconds since 1970.
    public var timestampSeconds: Int64
    /// Seconds since this app session started: `session_uptime`.
    public var uptimeSeconds: Int64
    public var version: String
    public var board: String?
    /// The ingest stats (totals and per channel) with the HLS counters merged in.
    public var stats: IngestStats
    /// The video session of each channel in `stats.channels`.
    public var videoSessions: [String: ReportUUID]
    /// The uplink's Wi-Fi state, nil when not configured or unreadable (`wifiError` says why).
    public var wifi: WiFiLinkInfo?
    public var wifiError: String?
    /// Reports the on-disk queue dropped (oldest first) because it was full.
    public var reportsDropped: Int
    /// The A/B update state (`GET /api/v1/update`: last result, multicast verdict); nil on a box
    /// without RAUC, and then not in the document.
    public var update: JSONValue?

    public init(deviceUUID: ReportUUID, appSessionUUID: ReportUUID, sequence: UInt64, timestampSeconds: Int64,
                uptimeSeconds: Int64, version: String, board: String? = nil, stats: IngestStats = IngestStats(),
                videoSessions: [String: ReportUUID] = [:], wifi: WiFiLinkInfo? = nil, wifiError: String? = nil,
                reportsDropped: Int = 0, update: JSONValue? = nil) {
        self.deviceUUID = deviceUUID
        self.appSessionUUID = appSessionUUID
        self.sequence = sequence
        self.timestampSeconds = timestampSeconds
        self.uptimeSeconds = uptimeSeconds
        self.version = version
        self.board = board
        self.stats = stats
        self.videoSessions = videoSessions
        self.wifi = wifi
        self.wifiError = wifiError
        self.reportsDropped = reportsDropped
        self.update = update
    }
}

/// The report document POSTed to the Reporter (docs/reporting.md): identities, the full stats
/// dictionary with StadiumVision keys verbatim, Wi-Fi info and `session_link_indicator`.
public enum ReportDocument {
    public static let schema = "grandstand.report/1"

    /// The post-FEC loss ratio of the stats totals (nil before any RTP packet was expected).
    public static func postFECLossRatio(_ stats: IngestStats) -> Double? {
        LinkIndicator.postFECLossRatio(received: stats.total("packets_received") ?? 0,
                                       lost: stats.total("rtp_packets_lost") ?? 0,
                                       recovered: stats.total("recovered_packets") ?? 0)
    }

    /// The report as JSON; keys in a fixed order so equal inputs give equal bytes.
    public static func build(_ input: ReportInput) -> JSONValue {
        let loss = postFECLossRatio(input.stats)
        let indicator = LinkIndicator.value(signalDBm: input.wifi?.signalDBm, postFECLossRatio: loss)
        var total = input.stats.total
        total["session_link_indicator"] = .number(Double(indicator))
        total["session_uptime"] = .number(Double(input.uptimeSeconds))
        var channels: [(key: String, value: JSONValue)] = []
        for id in input.stats.channels.keys.sorted() {
            var table = input.stats.channels[id] ?? [:]
            table["video_session_uuid"] = input.videoSessions[id].map { .string($0.description) } ?? .null
            channels.append((id, IngestStats.sorted(table)))
        }
        var members: [(String, JSONValue)] = [
            ("schema", .string(schema)),
            ("device_uuid", .string(input.deviceUUID.description)),
            ("app_session_uuid", .string(input.appSessionUUID.description)),
            ("report_sequence", .number(Double(input.sequence))),
            ("timestamp", .number(Double(input.timestampSeconds))),
            ("version", .string(input.version)),
            ("board", input.board.map(JSONValue.string) ?? .null),
            ("session_uptime", .number(Double(input.uptimeSeconds))),
            ("session_link_indicator", .number(Double(indicator))),
            ("post_fec_loss_ratio", loss.map { .number($0) } ?? .null),
            ("reports_dropped", .number(Double(input.reportsDropped))),
            ("wifi", input.wifi?.json ?? .null),
            ("wifi_error", input.wifiError.map(JSONValue.string) ?? .null),
            ("total", IngestStats.sorted(total)),
            ("channels", .object(channels)),
        ]
        if let update = input.update { members.append(("update", update)) }
        return .object(members)
    }

    /// The bytes to queue and POST: compact JSON and a final newline.
    public static func encode(_ input: ReportInput) -> [UInt8] { Array((build(input).encoded + "\n").utf8) }
}
