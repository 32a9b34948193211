import CGSNetlink
import Foundation
import Testing
import GrandstandCore
@testable import WiFi

/// Generic netlink itself: works on every Linux kernel (not under qemu-user, see `openSocket`).
@Suite struct GenericNetlinkTests {
    @Test func nlctrlResolvesToTheFixedControllerID() throws {
        guard let socket = try openSocket() else { return }
        let id = try socket.resolveFamily("nlctrl")
        #expect(id == Int32(GENL_ID_CTRL))
        #expect(id == 0x10)
    }

    @Test func unknownFamilyIsNotFound() throws {
        guard let socket = try openSocket() else { return }
        let error = try #require(wifiError { _ = try socket.resolveFamily("grandstand-none") })
        #expect(error == .familyNotFound("grandstand-none"))
        #expect(error.description == "grandstand-none: no such generic netlink family in this kernel")
    }

    @Test func missingInterfaceIsReportedByName() throws {
        guard let socket = try openSocket() else { return }
        let error = try #require(wifiError { _ = try socket.stations(interface: "gs-no-such0") })
        #expect(error == .noSuchInterface("gs-no-such0"))
        #expect(error.description == "gs-no-such0: no such network interface")
    }
}

/// nl80211 itself: present in the VM (cfg80211 + mac80211_hwsim), absent on this kind of host.
@Suite struct NL80211Tests {
    @Test func nl80211ResolvesOrIsClearlyAbsent() throws {
        guard let socket = try openSocket() else { return }
        do {
            let id = try socket.nl80211Family()
            #expect(id > 0x10, "dynamic family ids follow nlctrl's")
            let interfaces = try socket.interfaces()
            for interface in interfaces {
                #expect(interface.ifindex > 0)
                #expect(!interface.name.isEmpty)
                _ = try socket.stations(ifindex: interface.ifindex)
            }
        } catch let error as WiFiError {
            // Only acceptable failure: no cfg80211 here, and then only when no Wi-Fi was promised.
            #expect(WiFiTestEnvironment.interface == nil, "WIFI_TEST_IFACE set but: \(error)")
            #expect(error == .familyNotFound("nl80211"))
            #expect(error.description.contains("the kernel has no cfg80211/nl80211"))
        }
    }

    @Test func stationDumpOfANonWirelessInterfaceFails() throws {
        guard let socket = try openSocket() else { return }
        let lo = if_nametoindex("lo")
        try #require(lo != 0)
        let error = try #require(wifiError { _ = try socket.stations(ifindex: lo) })
        if case .netlink(let operation, let code, let errno) = error {
            // cfg80211 refuses a netdev that has no wireless_dev.
            #expect(errno != 0 && code > 0, "\(error)")
            #expect(operation == "dumping nl80211 stations of interface \(lo)")
        } else {
            #expect(error == .familyNotFound("nl80211"))
        }
    }

    /// The VM's hwsim setup: WIFI_TEST_IFACE must be listed; with WIFI_TEST_EXPECT_STATION=1 it
    /// must be associated (signal, bitrate), optionally to WIFI_TEST_BSSID / WIFI_TEST_SSID.
    @Test func configuredInterfaceIsListedWithItsStation() throws {
        guard let name = WiFiTestEnvironment.interface else {
            // Nothing promised: the lookup of a name that is not there must fail by name.
            let socket = try openSocket()
            if let socket {
                #expect(wifiError { _ = try socket.stations(interface: "wlan-absent") } == .noSuchInterface("wlan-absent"))
            }
            return
        }
        let socket = try #require(try openSocket(), "WIFI_TEST_IFACE=\(name) needs netlink")
        let interface = try #require(try socket.interfaces().first { $0.name == name }, "\(name) not in nl80211 dump")
        #expect(interface.ifindex == if_nametoindex(name))
        #expect(interface.mac != nil)
        if let ssid = WiFiTestEnvironment.ssid {
            #expect(interface.ssidText == ssid)
        }
        let stations = try socket.stations(interface: name)
        print("nl80211: \(interface) stations: \(stations)") // evidence in VM logs
        guard WiFiTestEnvironment.expectStation else { return }
        let station = try #require(stations.first, "\(name) has no station: not associated?")
        let signal = try #require(station.signalDBm)
        #expect((-110 ... 0).contains(signal))
        #expect((station.txBitrateKbps ?? 0) > 0)
        if let bssid = WiFiTestEnvironment.bssid {
            #expect(station.mac == bssid)
        }
    }
}

/// A connected socket, or nil under qemu-user after asserting its documented failure:
/// qemu-user (GRANDSTAND_QEMU_USER=1) emulates no NETLINK_GENERIC, so socket() gives
/// EPROTONOSUPPORT and libnl NLE_PROTO_MISMATCH. Anywhere else a failure fails the test.
func openSocket() throws -> NL80211Socket? {
    do {
        return try NL80211Socket()
    } catch let error as WiFiError where WiFiTestEnvironment.underQEMUUser {
        #expect(error == .netlinkUnavailable(code: NLE_PROTO_MISMATCH, errno: EPROTONOSUPPORT), "\(error)")
        #expect(error.description.contains("qemu-user does not emulate NETLINK_GENERIC"))
        return nil
    }
}

/// Runs `body` and returns the WiFiError it threw (nil if none; other errors are recorded).
/// `#expect(throws:)` only returns the error from Swift 6.1 on; the cross toolchain is 6.0.
func wifiError(_ body: () throws -> Void) -> WiFiError? {
    do {
        try body()
        return nil
    } catch let error as WiFiError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// What the runner promises about Wi-Fi here (the VM sets these after bringing up hwsim).
enum WiFiTestEnvironment {
    static let env = ProcessInfo.processInfo.environment
    static var underQEMUUser: Bool { env["GRANDSTAND_QEMU_USER"] == "1" }
    static var interface: String? { env["WIFI_TEST_IFACE"].flatMap { $0.isEmpty ? nil : $0 } }
    static var expectStation: Bool { env["WIFI_TEST_EXPECT_STATION"] == "1" }
    static var bssid: MACAddress? { env["WIFI_TEST_BSSID"].flatMap(MACAddress.init) }
    static var ssid: String? { env["WIFI_TEST_SSID"] }
}
