import Testing
@testable import GrandstandCore

struct ConfigTests {
    static let valid = """
    {"license":{"venueName":"Demo Stadium","contentOwner":"Grandstand","appDeveloper":"Grandstand"},
     "network":{"interface":"eth0","wifiInterface":"wlan0","wifiApInfo":[{"name":"venue-ap-1","bssid":"02-00-00-00-01-0A"}]},
     "listeners":{"fan":"0.0.0.0:8080","management":"[::1]:8081"},
     "management":{"token":"change-me"},
     "board":"/usr/share/grandstand/board.json"}
    """

    @Test func decodesTheDefaultShape() throws {
        let config = try GatewayConfig.decode(Array(Self.valid.utf8))
        #expect(config.license == .init(venueName: "Demo Stadium", contentOwner: "Grandstand", appDeveloper: "Grandstand"))
        #expect(config.network.wifiApInfo == [.init(name: "venue-ap-1", bssid: "02:00:00:00:01:0a")])
        #expect(config.listeners.fan == ListenAddress(host: "0.0.0.0", port: 8080))
        #expect(config.listeners.management == ListenAddress(host: "::1", port: 8081))
        #expect(config.managementToken == "change-me")
        #expect(config.boardPath == "/usr/share/grandstand/board.json")
    }

    @Test func minimalConfigTakesDefaults() throws {
        let config = try GatewayConfig.decode(Array(#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}}"#.utf8))
        #expect(config.listeners.fan.description == "127.0.0.1:8080")
        #expect(config.network.interface == "eth0")
        #expect(config.boardPath == nil)
    }

    @Test(arguments: [
        (#"{"licence":{}}"#, ["$.licence: unknown key (expected one of: board, cache, catalog, channels, discovery, fec, files, health, hls, license, listeners, logLevel, management, network, records, reporting, stateDirectory, streamers, update)",
                              "$.license: required object is missing (needs venueName, contentOwner, appDeveloper)"]),
        (#"{"license":{"venueName":"","contentOwner":3},"management":{"token":"t"}}"#,
         ["$.license.venueName: must not be empty", "$.license.contentOwner: expected a string, got a number",
          "$.license.appDeveloper: required string is missing"]),
        (#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},"network":{"wifiApInfo":[{"name":"a","bssid":"02:00:00:00:01:00"},{"name":"b","bssid":"nope"}]}}"#,
         ["$.network.wifiApInfo[1].bssid: \"nope\" is not a MAC address like 02:00:00:00:01:00"]),
        (#"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},"listeners":{"fan":"localhost:80","management":"1.2.3.4:99999"}}"#,
         ["$.listeners.fan: \"localhost:80\" is not a numeric host:port such as 0.0.0.0:8080 or [::]:8080",
          "$.listeners.management: \"1.2.3.4:99999\" is not a numeric host:port such as 0.0.0.0:8080 or [::]:8080"]),
        ("[1]", ["$: expected an object, got an array"]),
        ("{", ["$: not valid JSON: line 1, column 2: expected a member name in quotes"]),
    ])
    func rejectsWithPathAndReason(text: String, messages: [String]) {
        #expect(throws: ConfigError.self) { try GatewayConfig.decode(Array(text.utf8)) }
        do {
            _ = try GatewayConfig.decode(Array(text.utf8))
        } catch {
            #expect(error.issues.map(\.description) == messages)
        }
    }

    /// `listeners.fanLimits.engine` (libmicrohttpd was removed, one engine is left):
    /// absent or `"grandstand"` loads as before, so old configs keep working.
    @Test(arguments: [nil, "grandstand"])
    func fanEngineGrandstandIsStillAccepted(name: String?) throws {
        let limits = name.map { #","listeners":{"fanLimits":{"engine":"\#($0)"}}"# } ?? ""
        let text = #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"}"# + limits + "}"
        #expect(try GatewayConfig.decode(Array(text.utf8)).listeners.fanLimits == GatewayConfig.FanLimits())
    }

    /// The removed engine and anything else are refused with the path and why (never a silent
    /// switch to another engine).
    @Test(arguments: [
        (#""libmicrohttpd""#, #"$.listeners.fanLimits.engine: "libmicrohttpd" was removed: the fan listener runs the grandstand engine only (delete the key)"#),
        (#""nginx""#, #"$.listeners.fanLimits.engine: "nginx" is not an engine (the only one is grandstand; the key may be left out)"#),
        ("1", "$.listeners.fanLimits.engine: expected a string, got a number"),
    ])
    func removedOrUnknownFanEngineIsRefusedWithItsPath(value: String, message: String) {
        let text = #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"},"management":{"token":"t"},"listeners":{"fanLimits":{"engine":"# + value + "}}}"
        do {
            _ = try GatewayConfig.decode(Array(text.utf8))
            Issue.record("accepted engine \(value)")
        } catch {
            #expect(error.issues.map(\.description) == [message])
        }
    }

    @Test(arguments: [("0.0.0.0:8080", "0.0.0.0", 8080), ("[::]:80", "::", 80), ("10.1.2.3:0", "10.1.2.3", 0)])
    func listenAddresses(text: String, host: String, port: UInt16) {
        #expect(ListenAddress(parsing: text) == ListenAddress(host: host, port: port))
        #expect(ListenAddress(parsing: text)?.description == text)
    }

    @Test(arguments: ["8080", ":80", "1.2.3:80", "[::1]80", "[]:80", "1.2.3.4:", "1.2.3.4:-1", "256.1.1.1:80"])
    func badListenAddresses(text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }
}

struct BoardDescriptionTests {
    @Test func decodesLEDsAndInterfaces() throws {
        let board = try BoardDescription.decode(Array("""
        {"name":"qemu-virt","leds":{"service":{"chip":"gpiochip0","line":0,"activeLow":false},
         "fault":{"chip":"gpiochip0","line":1}},"interfaces":{"uplink":"eth0","wifi":"wlan0"}}
        """.utf8))
        #expect(board.name == "qemu-virt")
        #expect(board.leds["service"] == .init(chip: "gpiochip0", line: 0, activeLow: false))
        #expect(board.leds["fault"]?.line == 1)
        #expect(board.interfaces == ["uplink": "eth0", "wifi": "wlan0"])
    }

    @Test func badLineIsReportedWithItsPath() {
        do {
            _ = try BoardDescription.decode(Array(#"{"name":"b","leds":{"service":{"chip":"gpiochip0","line":-1,"colour":"red"}}}"#.utf8))
            Issue.record("accepted a negative line")
        } catch {
            #expect(error.issues.map(\.description) == [
                "$.leds.service.colour: unknown key (expected one of: activeLow, chip, line)",
                "$.leds.service.line: -1 is out of range 0...511",
            ])
        }
    }
}
