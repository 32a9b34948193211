import GrandstandCore
@testable import GrandstandIngest
import Testing

/// The journald events of channel-list changes name a program's multiplex and number, and a
/// multiplex's programs, so a technician reading the log sees where each channel came from.
struct ChannelEventsTests {
    static let mux = Channel(id: "venue-mux", name: "Venue Mux", kind: .video, group: IPAddress(parsing: "239.255.30.5"),
                             port: 5010, rtp: false, origin: .config)

    @Test func programEventsNameTheirMultiplex() {
        var program = Self.mux
        program.id = "bowl-cam"
        program.name = "Bowl Cam"
        program.multiplex = "venue-mux"
        program.programNumber = 101
        let added = ChannelEvents.event(for: .added(program))
        #expect(added.message == "channel bowl-cam (Bowl Cam, video) added at program 101 of venue-mux at 239.255.30.5:5010")
        #expect(added.fields.contains { $0 == ("MULTIPLEX", "venue-mux") } && added.fields.contains { $0 == ("PROGRAM_NUMBER", "101") })
        let removed = ChannelEvents.event(for: .removed(program, reason: .ended))
        #expect(removed.message == "channel bowl-cam removed (ended)")

        var split = Self.mux
        split.kind = .multiplex
        split.programChannels = ["bowl-cam", "tunnel-cam"]
        let updated = ChannelEvents.event(for: .updated(split))
        #expect(updated.message == "channel venue-mux is a multiplex of 2 programs: bowl-cam, tunnel-cam")
        #expect(updated.fields.contains { $0 == ("KIND", "multiplex") })
    }
}
