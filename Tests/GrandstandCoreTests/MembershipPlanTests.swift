import Testing
@testable import GrandstandCore

struct MembershipPlanTests {
    /// Successive desired sets and the actions each update must return, in order.
    static let scripts: [[([String], [String])]] = [
        [(["239.255.1.1:5000", "239.255.1.1:5002", "239.255.255.255:9875"], ["join (*, 239.255.1.1)", "join (*, 239.255.255.255)"]),
         // Same memberships (a port more): nothing to do.
         (["239.255.1.1:5000", "239.255.1.1:5004", "239.255.255.255:9875"], []),
         (["239.255.255.255:9875", "239.255.1.2:5000"], ["leave (*, 239.255.1.1)", "join (*, 239.255.1.2)"]),
         ([], ["leave (*, 239.255.1.2)", "leave (*, 239.255.255.255)"])],
        // A group switching from any-source to one source: leave first, then join.
        [(["239.255.1.1:5000"], ["join (*, 239.255.1.1)"]),
         (["10.0.0.9>239.255.1.1:5000"], ["leave (*, 239.255.1.1)", "join (10.0.0.9, 239.255.1.1)"]),
         (["10.0.0.9>239.255.1.1:5000", "10.0.0.8>239.255.1.1:5000", "[ff0e::2:7ffe]:9875"],
          ["join (10.0.0.8, 239.255.1.1)", "join (*, ff0e::2:7ffe)"])],
    ]

    @Test(arguments: scripts)
    func diffs(steps: [([String], [String])]) {
        var plan = MembershipPlan()
        for (desired, actions) in steps {
            #expect(plan.update(desired: desired.map(memberEndpoint)).map(\.description) == actions)
            #expect(plan.held == Set(desired.map { memberEndpoint($0).membership }))
        }
    }

    @Test func failedJoinIsRetriedOnTheNextUpdate() {
        var plan = MembershipPlan()
        let wanted = ["239.255.1.1:5000", "239.255.1.2:5000"].map(memberEndpoint)
        #expect(plan.update(desired: wanted).count == 2)
        plan.joinFailed(wanted[1].membership)
        #expect(plan.update(desired: wanted) == [.join(wanted[1].membership)])
        #expect(plan.update(desired: wanted) == [])
    }

    @Test func resetJoinsEverythingAgainAndLeaveAllReleases() {
        var plan = MembershipPlan()
        let wanted = ["239.255.1.2:5000", "239.255.1.1:5000"].map(memberEndpoint)
        _ = plan.update(desired: wanted)
        plan.reset()
        #expect(plan.update(desired: wanted).map(\.description) == ["join (*, 239.255.1.1)", "join (*, 239.255.1.2)"])
        #expect(plan.leaveAll().map(\.description) == ["leave (*, 239.255.1.1)", "leave (*, 239.255.1.2)"])
        #expect(plan.held.isEmpty)
    }
}
