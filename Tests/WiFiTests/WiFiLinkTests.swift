import Foundation
@testable import GrandstandCore
import Testing
import TestSupport
@testable import WiFi

/// The report's Wi-Fi view (`linkInfo`): proven against a real association in the VM, where the
/// kernel suite sets WIFI_TEST_HWSIM=1 (root, mac80211_hwsim module, hostapd and iw installed).
/// Elsewhere it asserts the clear error this kernel gives.
@Suite(.serialized) struct WiFiLinkTests {
    static let ssid = "grandstand-hwsim"

    /// Without a Wi-Fi stack the report says why; with one, a wired interface is "not wireless".
    @Test func linkInfoOfANonWirelessInterfaceIsAClearError() throws {
        guard let socket = try openSocket() else { return }
        let error = try #require(wifiError { _ = try socket.linkInfo(interface: "lo") })
        if error != .familyNotFound("nl80211") {
            #expect(error == .notWireless("lo"))
            #expect(error.description == "lo: not a wireless interface (nl80211 does not list it)")
        } else {
            #expect(error.description == "nl80211: no such generic netlink family: the kernel has no cfg80211/nl80211 (no Wi-Fi stack or driver loaded)")
        }
        #expect(wifiError { _ = try socket.linkInfo(interface: "wlan-absent9") } == .noSuchInterface("wlan-absent9"))
    }

    /// Two hwsim radios: hostapd runs an open network on the first, the second connects with
    /// `iw connect`. The station side must report the AP's BSSID, SSID, 2412 MHz, a signal and
    /// the AP's configured name; the AP side one client with its signal.
    @Test func hwsimStationReportsTheAccessPoint() throws {
        guard WiFiTestEnvironment.hwsim else {
            // Not promised here (host, qemu-user): the facility's absence must be the clear error.
            guard let socket = try openSocket() else { return }
            if let error = wifiError({ _ = try socket.nl80211Family() }) {
                #expect(error == .familyNotFound("nl80211"), "\(error)")
            }
            return
        }
        try #require(TestEnvironment.isRoot, "WIFI_TEST_HWSIM=1 needs root (modprobe, hostapd)")
        let socket = try #require(try openSocket())
        try runCommand(["modprobe", "mac80211_hwsim", "radios=2"])
        let radios = try waitFor("two hwsim interfaces") { () -> [WiFiInterface]? in
            let found = try socket.interfaces().sorted { $0.name < $1.name }
            return found.count >= 2 ? Array(found.prefix(2)) : nil
        }
        let apName = radios[0].name, stationName = radios[1].name
        let apMAC = try #require(radios[0].mac), stationMAC = try #require(radios[1].mac)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gs-hwsim-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("hostapd.conf")
        try """
        interface=\(apName)
        driver=nl80211
        ssid=\(Self.ssid)
        hw_mode=g
        channel=1
        """.write(to: configuration, atomically: true, encoding: .utf8)
        // hostapd in the foreground as our child (no -B), spawned without Foundation.Process.
        var hostapd: SpawnedProcess?
        defer {
            hostapd?.stop()
            _ = try? runCommand(["timeout", "20", "iw", "dev", stationName, "disconnect"])
            try? FileManager.default.removeItem(at: directory)
        }
        try runCommand(["ip", "link", "set", stationName, "up"])
        func log() -> String {
            (try? String(contentsOf: directory.appendingPathComponent("hostapd.log"), encoding: .utf8)) ?? ""
        }
        let daemon = try SpawnedProcess(["hostapd", "-f", directory.appendingPathComponent("hostapd.log").path, configuration.path])
        hostapd = daemon
        _ = try waitFor("\(apName) beaconing") { () -> Bool? in
            guard daemon.isRunning else { throw WaitTimeout(description: "hostapd exited: \(log())") }
            let info = try socket.linkInfo(interface: apName)
            return info.mode == "ap" && info.ssid == Self.ssid ? true : nil
        }
        try runCommand(["timeout", "20", "iw", "dev", stationName, "connect", Self.ssid])

        // The venue table spells the BSSID differently (upper case, dashes): matched as a MAC.
        let table = [GatewayConfig.WiFiAccessPoint(name: "other-ap", bssid: "02:00:00:00:99:99"),
                     GatewayConfig.WiFiAccessPoint(name: "north-stand", bssid: apMAC.description.uppercased().replacingOccurrences(of: ":", with: "-"))]
        let station = try waitFor("\(stationName) associated") { () -> WiFiLinkInfo? in
            let info = try NL80211Socket().linkInfo(interface: stationName, accessPoints: table)
            // The tx rate is known after the first frames to the AP, a moment after association.
            return info.associated && info.signalDBm != nil && (info.txBitrateKbps ?? 0) > 0 ? info : nil
        }
        print("nl80211 station: \(station)") // evidence in the VM log
        #expect(station.mode == "station")
        #expect(station.mac == stationMAC.description)
        #expect(station.bssid == apMAC.description)
        #expect(station.ssid == Self.ssid)
        #expect(station.frequencyMHz == 2412)
        #expect((-110 ... 0).contains(station.signalDBm ?? 1))
        #expect((station.txBitrateKbps ?? 0) > 0)
        #expect(station.apName == "north-stand")
        #expect(station.connectedSeconds != nil && station.txRetries != nil && station.txFailed != nil)

        let ap = try waitFor("\(apName) lists its client") { () -> WiFiLinkInfo? in
            let info = try NL80211Socket().linkInfo(interface: apName, accessPoints: table)
            return info.stations.count == 1 ? info : nil
        }
        print("nl80211 access point: \(ap)")
        #expect(ap.mode == "ap")
        #expect(ap.bssid == apMAC.description)
        #expect(ap.ssid == Self.ssid)
        #expect(ap.apName == "north-stand")
        #expect(ap.stations.map { $0.mac } == [stationMAC.description])
        #expect(ap.json["station_count"] == .number(1))

        // The report document built from the live reading carries it verbatim.
        let report = ReportDocument.build(ReportInput(
            deviceUUID: ReportUUID(randomHigh: 1, low: 2), appSessionUUID: ReportUUID(randomHigh: 3, low: 4), sequence: 1,
            timestampSeconds: 0, uptimeSeconds: 0, version: "test", wifi: station))
        #expect(report["wifi"]?["bssid"] == JSONValue.string(apMAC.description))
        #expect(report["wifi"]?["ap_name"] == JSONValue.string("north-stand"))
        #expect(report["session_link_indicator"] == .number(Double(LinkIndicator.signalGrade(station.signalDBm ?? -100))))
    }

    /// Polls `probe` every 200 ms for up to 60 s (a loaded emulated guest is slow); a clear failure names what never happened.
    private func waitFor<T>(_ what: String, _ probe: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(60)
        var lastError: Error?
        while Date() < deadline {
            do {
                if let value = try probe() { return value }
            } catch {
                lastError = error
            }
            usleep(200_000)
        }
        throw WaitTimeout(description: "timed out waiting for \(what)" + (lastError.map { " (last error: \($0))" } ?? ""))
    }
}

struct WaitTimeout: Error, CustomStringConvertible {
    let description: String
}

extension WiFiTestEnvironment {
    /// The runner promises root, mac80211_hwsim, hostapd and iw (the VM's kernel suite).
    static var hwsim: Bool { env["WIFI_TEST_HWSIM"] == "1" }
}
