import Testing
@testable import GrandstandCore

struct ReportingDocumentTests {
    static let device = ReportUUID(randomHigh: 0x0011_2233_4455_6677, low: 0x8899_aabb_ccdd_eeff)
    static let session = ReportUUID(randomHigh: 0, low: 0)

    @Test func uuidTextHasVersionAndVariantBits() throws {
        #expect(Self.device.description == "00112233-4455-4677-8899-aabbccddeeff")
        #expect(Self.session.description == "00000000-0000-4000-8000-000000000000")
        let parsed = try #require(ReportUUID(" 00112233-4455-4677-8899-AABBCCDDEEFF\n"))
        #expect(parsed == Self.device)
        #expect(ReportUUID(random: [UInt8](repeating: 0xff, count: 16))?.description == "ffffffff-ffff-4fff-bfff-ffffffffffff")
    }

    @Test(arguments: ["", "0011223344556677889900aabbccddee", "00112233-4455-4677-8899-aabbccddeef",
                      "00112233-4455-4677-8899-aabbccddeefg", "0011-22334455-4677-8899-aabbccddeeff"])
    func badUUIDText(text: String) {
        #expect(ReportUUID(text) == nil)
    }

    @Test func videoSessionsKeepTheirUUIDWhileTheChannelStays() {
        var sessions = VideoSessions()
        var next: UInt64 = 0
        func fresh() -> ReportUUID { next += 1; return ReportUUID(randomHigh: next, low: 0) }
        let first = sessions.update(channels: ["a", "b"], newUUID: fresh)
        let second = sessions.update(channels: ["a"], newUUID: fresh)
        let third = sessions.update(channels: ["a", "b"], newUUID: fresh)
        #expect(second["a"] == first["a"])
        #expect(third["a"] == first["a"])
        #expect(third["b"] != nil && third["b"] != first["b"], "b came back: a new session")
        #expect(next == 3)
    }

    @Test func apNameByBSSIDInAnySpelling() {
        let table = [GatewayConfig.WiFiAccessPoint(name: "north-stand", bssid: "02:00:00:00:01:0a"),
                     GatewayConfig.WiFiAccessPoint(name: "south-stand", bssid: "02:00:00:00:02:00")]
        #expect(WiFiLinkInfo.apName(bssid: "02-00-00-00-01-0A", in: table) == "north-stand")
        #expect(WiFiLinkInfo.apName(bssid: "02:00:00:00:02:00", in: table) == "south-stand")
        #expect(WiFiLinkInfo.apName(bssid: "02:00:00:00:03:00", in: table) == nil)
        #expect(WiFiLinkInfo.apName(bssid: nil, in: table) == nil)
    }

    @Test func reportCarriesIdentitiesStatsWiFiAndIndicator() throws {
        var stats = IngestStats()
        stats.total = ["packets_received": .number(990), "rtp_packets_lost": .number(20), "recovered_packets": .number(10),
                       "window_no_loss": .number(7), "num_channel_announcements_received": .number(3)]
        stats.channels = ["ch1": ["total_num_bytes_written": .number(1316), "announcement_session_title": .string("Main")]]
        var wifi = WiFiLinkInfo(interface: "wlan0", mode: "station")
        wifi.associated = true
        wifi.bssid = "02:00:00:00:01:00"
        wifi.ssid = "venue"
        wifi.apName = "north-stand"
        wifi.frequencyMHz = 2412
        wifi.signalDBm = -60
        let input = ReportInput(deviceUUID: Self.device, appSessionUUID: Self.session, sequence: 4, timestampSeconds: 1_800_000_000,
                                uptimeSeconds: 125, version: "1.2.3", board: "qemu-virt", stats: stats,
                                videoSessions: ["ch1": ReportUUID(randomHigh: 1, low: 1)], wifi: wifi, reportsDropped: 2)
        let report = ReportDocument.build(input)
        #expect(report["schema"] == .string("grandstand.report/1"))
        #expect(report["device_uuid"] == .string("00112233-4455-4677-8899-aabbccddeeff"))
        #expect(report["app_session_uuid"] == .string(Self.session.description))
        #expect(report["report_sequence"] == .number(4))
        #expect(report["session_uptime"] == .number(125))
        // 10 of 1000 unrecovered = 1 % → loss grade 3; −60 dBm → 8; the weaker wins.
        #expect(report["post_fec_loss_ratio"] == .number(0.01))
        #expect(report["session_link_indicator"] == .number(3))
        #expect(report["total"]?["session_link_indicator"] == .number(3))
        #expect(report["total"]?["window_no_loss"] == .number(7))
        #expect(report["total"]?["num_channel_announcements_received"] == .number(3))
        #expect(report["channels"]?["ch1"]?["video_session_uuid"] == .string("00000000-0000-4001-8000-000000000001"))
        #expect(report["channels"]?["ch1"]?["total_num_bytes_written"] == .number(1316))
        #expect(report["wifi"]?["bssid"] == .string("02:00:00:00:01:00"))
        #expect(report["wifi"]?["ap_name"] == .string("north-stand"))
        #expect(report["wifi"]?["signal_dbm"] == .number(-60))
        #expect(report["wifi"]?["station_count"] == nil, "station mode has no client list")
        #expect(report["reports_dropped"] == .number(2))
        // Deterministic bytes, parseable back.
        let bytes = ReportDocument.encode(input)
        #expect(bytes == ReportDocument.encode(input))
        #expect(try JSONParser.parse(bytes) == report)
    }

    @Test func apModeReportsItsClients() {
        var wifi = WiFiLinkInfo(interface: "wlan1", mode: "ap")
        wifi.stations = [.init(mac: "02:00:00:00:00:00", signalDBm: -30), .init(mac: "02:00:00:00:00:01", signalDBm: nil)]
        #expect(wifi.json["station_count"] == .number(2))
        #expect(wifi.json["stations"] == .array([
            .object([("mac", .string("02:00:00:00:00:00")), ("signal_dbm", .number(-30))]),
            .object([("mac", .string("02:00:00:00:00:01")), ("signal_dbm", .null)]),
        ]))
    }

    @Test func withoutWiFiTheIndicatorIsZeroAndTheErrorIsReported() {
        let input = ReportInput(deviceUUID: Self.device, appSessionUUID: Self.session, sequence: 1, timestampSeconds: 0,
                                uptimeSeconds: 0, version: "v", wifiError: "wlan0: no such network interface")
        let report = ReportDocument.build(input)
        #expect(report["wifi"] == .null)
        #expect(report["wifi_error"] == .string("wlan0: no such network interface"))
        #expect(report["session_link_indicator"] == .number(0))
        #expect(report["post_fec_loss_ratio"] == .null)
    }
}
