import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandDaemon
@testable import GrandstandOperations

/// The Wi-Fi members of `GET /api/v1/stats` and their `grandstand stats` rendering (docs/wifi.md).
/// The real association is proven in the VM (check `wifi-hwsim`); here the host's clear error.
struct WiFiStatsTests {
    @Test func statsCarryTheWiFiMembersWithTheReasonWhenUnreadable() throws {
        let daemon = Daemon(config: try DaemonTests.config(), board: nil)
        try daemon.start()
        defer { daemon.stop() }
        let document = try JSONParser.parse(Array(try DaemonHealthTests.call(daemon, "GET", "/api/v1/stats").body.utf8))
        #expect(document["total"] != nil)
        #expect(document["in_venue"] == .bool(false))
        guard !FileManager.default.fileExists(atPath: "/sys/class/net/wlan0") else { return } // a host with Wi-Fi: nothing to assert
        #expect(document["wifi"] == .null)
        guard case .string(let reason)? = document["wifi_error"] else {
            Issue.record("no wifi_error: \(document)")
            return
        }
        // No cfg80211 (this host), no NETLINK_GENERIC (qemu-user), or cfg80211 without wlan0.
        #expect(reason.contains("nl80211") || reason.contains("NETLINK_GENERIC") || reason.contains("wlan0"), "\(reason)")
        #expect(document["wifi_interfaces"] == .array([]))
        // /metrics ignores them (only totals and channels become families).
        let metrics = try DaemonHealthTests.call(daemon, "GET", "/metrics").body
        #expect(!metrics.contains("wifi_error"))
    }

    @Test func statsCommandPrintsTheUplinkAndEachInterface() throws {
        let document = try JSONParser.parse(Array("""
        {"total":{"frames_received":1},"channels":{},
         "wifi":{"interface":"wlan0","mode":"station","associated":true,"bssid":"02:00:00:00:01:00","ssid":"venue",
                 "ap_name":"north-stand","frequency_mhz":2412,"signal_dbm":-31,"signal_grade":10},
         "wifi_error":null,"in_venue":true,
         "wifi_interfaces":[{"interface":"wlan1","mode":"ap","ssid":"venue","bssid":"02:00:00:00:01:00","frequency_mhz":2412,
                             "signal_dbm":null,"station_count":1,"stations":[{"mac":"02:00:00:00:00:00","signal_dbm":-30}]}]}
        """.utf8))
        let lines = ManagementText.stats(document).split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("in_venue true"))
        #expect(lines.contains("bssid 02:00:00:00:01:00"))
        #expect(lines.contains("ap_name north-stand"))
        #expect(lines.contains("signal_dbm -31"))
        #expect(lines.contains("INTERFACE MODE SSID BSSID MHZ SIGNAL CLIENTS"))
        #expect(lines.contains("wlan1 ap venue 02:00:00:00:01:00 2412 - 02:00:00:00:00:00@-30dBm"), "\(lines)")

        let unreadable = try JSONParser.parse(Array(#"{"total":{},"wifi":null,"wifi_error":"nl80211: gone","wifi_interfaces":[],"in_venue":false}"#.utf8))
        let text = ManagementText.stats(unreadable)
        #expect(text.contains("nl80211: gone"))
        #expect(!text.contains("INTERFACE"))
        // Documents without Wi-Fi members (older daemons) print as before.
        #expect(!ManagementText.stats(try JSONParser.parse(Array(#"{"total":{"a":1}}"#.utf8))).contains("WIFI"))
    }
}
