import Testing
@testable import GrandstandCore

struct MembershipSilenceTests {
    static let second: Int64 = 1_000_000_000
    let a = memberEndpoint("239.255.1.1:5000").membership
    let b = memberEndpoint("239.255.1.2:5000").membership
    let ssm = memberEndpoint("10.0.0.9>239.255.1.3:5000").membership
    let sender = IPAddress(parsing: "10.0.0.9")!
    let other = IPAddress(parsing: "10.0.0.7")!

    /// Timelines: (time in s, packets to groups "a"/"b"/"ssm"/"ssm-other", expected re-joins at a tick then).
    static let timelines: [[(Int, [String], [String])]] = [
        // Traffic on a until 3 s; silence of 10 s → re-join at 13 s, then every 10 s while silent.
        [(1, ["a"], []), (3, ["a"], []), (12, [], []), (13, [], ["a"]), (22, [], []), (23, [], ["a"]),
         // Traffic back at 24 s: the next re-join only after 10 s of silence again.
         (24, ["a"], []), (33, [], []), (34, [], ["a"])],
        // b never carried anything: never re-joined. a and b both silent: sorted order.
        [(0, ["a", "b"], []), (5, ["b"], []), (10, [], ["a"]), (15, [], ["b"])],
        // SSM: only the announced source keeps the membership alive.
        [(0, ["ssm"], []), (5, ["ssm-other"], []), (10, [], ["ssm"])],
    ]

    @Test(arguments: timelines)
    func timeline(steps: [(Int, [String], [String])]) {
        var watch = SilenceWatch(silenceNanoseconds: 10 * Self.second)
        watch.track([a, b, ssm])
        var expectedTotal = 0
        for (time, packets, rejoins) in steps {
            let now = Int64(time) * Self.second
            for name in packets {
                switch name {
                case "a": watch.observe(destination: a.group, sender: other, at: now)
                case "b": watch.observe(destination: b.group, sender: other, at: now)
                case "ssm": watch.observe(destination: ssm.group, sender: sender, at: now)
                default: watch.observe(destination: ssm.group, sender: other, at: now)
                }
            }
            let names = watch.tick(now: now).map { action -> String in
                switch action.membership { case a: return "a"; case b: return "b"; default: return "ssm" }
            }
            #expect(names == rejoins, "at \(time) s")
            expectedTotal += rejoins.count
        }
        #expect(watch.totalRestarts == expectedTotal)
        #expect(watch.restarts.values.reduce(0, +) == expectedTotal)
    }

    @Test func interfaceReturnRejoinsEveryTrackedMembershipAndCounts() {
        var watch = SilenceWatch()
        watch.track([b, a])
        #expect(watch.interfaceReturned(now: 0) == [.rejoin(a), .rejoin(b)])
        #expect(watch.restarts == [a: 1, b: 1] && watch.totalRestarts == 2)
        #expect(watch.restarts(for: memberEndpoint("239.255.1.1:5000")) == 1)
        #expect(watch.restarts(for: memberEndpoint("239.255.9.9:5000")) == 0)
        #expect(SilenceWatch.statsKey == "num_channel_announcement_igmp_restarts")
    }

    @Test func untrackedMembershipsAreForgottenButCountsKept() {
        var watch = SilenceWatch(silenceNanoseconds: Self.second)
        watch.track([a])
        watch.observe(destination: a.group, sender: other, at: 0)
        #expect(watch.tick(now: Self.second) == [.rejoin(a)])
        watch.track([b])
        #expect(watch.lastPacket(a) == nil)
        #expect(watch.tick(now: 10 * Self.second) == [])
        #expect(watch.restarts[a] == 1)
        // Tracked again: starts unwatched until its next packet.
        watch.track([a, b])
        #expect(watch.tick(now: 20 * Self.second) == [])
        watch.observe(destination: a.group, sender: other, at: 21 * Self.second)
        #expect(watch.lastPacket(a) == 21 * Self.second)
    }
}
