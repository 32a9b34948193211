import Testing
@testable import GrandstandCore

/// Multicast update rollout (RolloutPolicy, docs/updates.md "Multicast delivery"): installs and
/// reboots only inside the windows and under the viewer limit, each box's reboot at its own turn.
@Suite struct RolloutPolicyTests {
    /// 2026-11-27 00:00:00 UTC.
    static let midnight: Int64 = 1_795_737_600

    static func policy(_ windows: [String], maxViewers: Int = 0, stagger: Int = 1800) -> RolloutPolicy {
        RolloutPolicy(windows: windows.compactMap(RolloutPolicy.Window.init), maxViewers: maxViewers, staggerSeconds: stagger)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var windows: [String]
        var secondOfDay: Int64
        var viewers: Int
        var installed: Bool
        var key: UInt64
        var expected: RolloutPolicy.Step
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "outside the window", windows: ["02:00-05:00"], secondOfDay: 3600, viewers: 0, installed: false, key: 0, expected: .wait(.outsideWindows)),
        Case(name: "in the window: install", windows: ["02:00-05:00"], secondOfDay: 7200, viewers: 0, installed: false, key: 0, expected: .install),
        Case(name: "fans watching: wait", windows: ["02:00-05:00"], secondOfDay: 7200, viewers: 3, installed: false, key: 0, expected: .wait(.viewers(3))),
        Case(name: "installed, before its turn", windows: ["02:00-05:00"], secondOfDay: 7200 + 100, viewers: 0, installed: true, key: 600,
             expected: .wait(.turn(atUnixSeconds: midnight + 7200 + 600))),
        Case(name: "installed, at its turn", windows: ["02:00-05:00"], secondOfDay: 7200 + 600, viewers: 0, installed: true, key: 600, expected: .reboot),
        Case(name: "installed, turn wraps at the stagger", windows: ["02:00-05:00"], secondOfDay: 7200 + 10, viewers: 0, installed: true, key: 1800 + 5, expected: .reboot),
        Case(name: "window over midnight, before midnight", windows: ["23:00-01:00"], secondOfDay: 23 * 3600 + 600, viewers: 0, installed: true, key: 5000,
             expected: .wait(.turn(atUnixSeconds: midnight + 23 * 3600 + 5000 % 1800))),
        Case(name: "window over midnight: after midnight its turn has passed", windows: ["23:00-01:00"], secondOfDay: 1800, viewers: 0, installed: true, key: 5000,
             expected: .reboot),
        Case(name: "a short window shortens the stagger", windows: ["03:00-03:10"], secondOfDay: 3 * 3600 + 539, viewers: 0, installed: true, key: 540,
             expected: .reboot),
        Case(name: "installed, fans watching: no reboot", windows: ["02:00-05:00"], secondOfDay: 7200 + 900, viewers: 1, installed: true, key: 0, expected: .wait(.viewers(1))),
        Case(name: "no windows: any time", windows: [], secondOfDay: 12 * 3600 + 60, viewers: 0, installed: false, key: 0, expected: .install),
    ]

    @Test(arguments: cases) func steps(_ c: Case) {
        let step = Self.policy(c.windows).step(nowUnixSeconds: Self.midnight + c.secondOfDay, viewers: c.viewers, installed: c.installed, boxKey: c.key)
        #expect(step == c.expected)
    }

    /// A venue's boxes: every one gets a turn inside the window, spread over the stagger.
    @Test func aVenuesBoxesRebootSpreadOverTheStagger() {
        let policy = Self.policy(["02:00-05:00"], stagger: 1800)
        var turns: [Int64] = []
        for box in 0..<300 {
            let key = UInt64(box) &* 0x9E37_79B9_7F4A_7C15
            var second: Int64 = 7200
            while policy.step(nowUnixSeconds: Self.midnight + second, viewers: 0, installed: true, boxKey: key) != .reboot { second += 10 }
            turns.append(second - 7200)
        }
        let latest = turns.max() ?? 0
        #expect(latest < 1800)
        // No ten-second slot holds more than a few boxes (300 boxes over 180 slots).
        var perSlot: [Int64: Int] = [:]
        for turn in turns { perSlot[turn / 10, default: 0] += 1 }
        #expect((perSlot.values.max() ?? 0) <= 8)
    }
}
