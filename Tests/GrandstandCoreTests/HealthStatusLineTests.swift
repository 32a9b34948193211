import Testing
@testable import GrandstandCore

/// The sd_notify STATUS= summary (`systemctl status` shows it as `Status:`).
struct HealthStatusLineTests {
    @Test func upNamesChannelsAndVenue() {
        #expect(ServiceState(reasons: [], inVenue: true).statusLine(channels: 2) == "up, 2 channels, in venue")
        #expect(ServiceState(reasons: [], inVenue: false).statusLine(channels: 1) == "up, 1 channel, out of venue")
    }

    @Test func downNamesEveryReasonAndTheBlinkCode() {
        let state = ServiceState(reasons: [.wifiDown, .noChannels])
        #expect(state.statusLine(channels: 0) == "down (wifi-down, no-channels; blink code 2), 0 channels, out of venue")
        #expect(ServiceState(reasons: .notRunning).statusLine(channels: 3)
            == "down (not-running; blink code 4), 3 channels, out of venue")
        #expect(!ServiceState(reasons: .poorQuality, inVenue: true).statusLine(channels: 1).contains("\n"))
    }
}
