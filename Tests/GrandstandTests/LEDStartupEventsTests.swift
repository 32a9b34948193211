import GrandstandCore
import Testing
@testable import GrandstandDaemon
@testable import GrandstandIngest
@testable import GrandstandOperations
@testable import GrandstandServices
@testable import GrandstandServing
@testable import GrandstandStreamer

/// The LED events of the daemon's start: `leds-held` is the positive proof the VM check
/// `leds-boot-order` reads, so it must name exactly the LEDs held, with its own MESSAGE_ID.
struct LEDStartupEventsTests {
    @Test func allLEDsHeldGivesOneLedsHeldEvent() throws {
        let events = LEDStartupEvents.events(held: ["service", "fault", "activity"], unavailable: [])
        #expect(events.map(\.kind) == [.ledsHeld])
        let held = try #require(events.first)
        #expect(held.message == "status LEDs activity, fault, service held at start")
        let fields = Dictionary(uniqueKeysWithValues: held.journalFields.map { ($0.name, $0.value) })
        #expect(fields["MESSAGE_ID"] == "1f02bdc844b148988687228cd99ec126")
        #expect(fields["GRANDSTAND_EVENT"] == "leds-held")
        #expect(fields["GRANDSTAND_LEDS"] == "activity,fault,service")
        #expect(fields["PRIORITY"] == "5")
    }

    @Test func aMissingChipIsUnavailableAndNotHeld() {
        let events = LEDStartupEvents.events(held: [], unavailable: [("gpiochip97", "gpiochip97: no such chip (ENOENT)")])
        #expect(events.map(\.kind) == [.ledsUnavailable])
        #expect(events.first?.fields.map(\.value) == ["gpiochip97"])
    }

    @Test func partlyHeldReportsBoth() {
        let events = LEDStartupEvents.events(held: ["service"], unavailable: [("gpiochip1", "gpiochip1: busy (EBUSY)")])
        #expect(events.map(\.kind) == [.ledsUnavailable, .ledsHeld])
        #expect(events.last?.fields.map(\.value) == ["service"])
    }

    @Test func everyEventKindHasItsOwnMessageID() {
        let ids = GatewayEvent.Kind.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    /// On the host no chip exists: the daemon reports it unavailable and logs no `leds-held`.
    @Test func theDaemonWithoutItsChipLogsNoLedsHeld() throws {
        let daemon = try DaemonHealthTests.start()
        defer { daemon.stop() }
        let kinds = daemon.events.hub.recentKinds
        #expect(kinds.contains("leds-unavailable"))
        #expect(!kinds.contains("leds-held"))
    }
}
