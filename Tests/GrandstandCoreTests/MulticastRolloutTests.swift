import Testing
@testable import GrandstandCore

/// Bundles heard on the update channel (MulticastRollout, docs/updates.md "Multicast delivery"):
/// refused when foreign, unverified or not newer, and never decided twice; installed only when
/// the rollout policy allows; the reboot at the box's turn, not before.
@Suite struct MulticastRolloutTests {
    /// 2026-11-27 00:00:00 UTC.
    static let midnight: Int64 = 1_795_737_600
    static let system = MulticastRollout.System(compatible: "grandstand-qemu-virt", version: "0.1.0")

    static func bundle(_ key: String = "hash-a", version: String = "0.2.0", compatible: String = "grandstand-qemu-virt") -> MulticastRollout.Bundle {
        MulticastRollout.Bundle(key: key, path: "/var/lib/grandstand/files/updates/" + key + ".raucb", compatible: compatible, version: version)
    }

    static func rollout(_ windows: [String] = ["02:00-05:00"], maxViewers: Int = 0, stagger: Int = 1800, key: UInt64 = 600) -> MulticastRollout {
        MulticastRollout(policy: RolloutPolicy(windows: windows.compactMap(RolloutPolicy.Window.init), maxViewers: maxViewers, staggerSeconds: stagger),
                         boxKey: key)
    }

    struct VersionCase: Sendable, CustomTestStringConvertible {
        var older: String
        var newer: String
        var testDescription: String { older + " < " + newer }
    }

    static let versions: [VersionCase] = [
        VersionCase(older: "0.9.3", newer: "0.10.0"),
        VersionCase(older: "0.1.0", newer: "0.1.1"),
        VersionCase(older: "1.9", newer: "2.0"),
        VersionCase(older: "0.1.0", newer: "0.1.0+vmtest.1"),
        VersionCase(older: "0.1.0+vmtest.broken", newer: "0.1.0+vmtest.1"),
        VersionCase(older: "1.0.rc", newer: "1.0.1"),
        VersionCase(older: "2026.1.9", newer: "2026.11.2"),
        VersionCase(older: "", newer: "0.0.1"),
    ]

    @Test(arguments: versions) func dottedNumbersCompareAsNumbers(_ c: VersionCase) {
        #expect(BundleVersion(c.older) < BundleVersion(c.newer))
        #expect(!(BundleVersion(c.newer) < BundleVersion(c.older)))
        #expect(!(BundleVersion(c.newer) < BundleVersion(c.newer)))
    }

    @Test func separatorsDoNotMatter() {
        #expect(BundleVersion("1.2.3") == BundleVersion("1-2-3"))
        #expect(BundleVersion("0.10") != BundleVersion("0.1"))
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var version: String
        var compatible: String
        var kind: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "another board", version: "0.2.0", compatible: "grandstand-rpi4", kind: "foreign"),
        Refusal(name: "older", version: "0.0.9", compatible: "grandstand-qemu-virt", kind: "not-newer"),
        Refusal(name: "the same version", version: "0.1.0", compatible: "grandstand-qemu-virt", kind: "not-newer"),
    ]

    /// Refused once with the reason; heard again (the next carousel round) it is ignored.
    @Test(arguments: refusals) func refusesOnceAndNotAgain(_ c: Refusal) {
        var rollout = Self.rollout()
        let bundle = Self.bundle(version: c.version, compatible: c.compatible)
        guard case .refuse(let refused, let why) = rollout.verified(bundle, system: Self.system) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refused == bundle && why.kind == c.kind)
        #expect(rollout.knows(bundle.key))
        #expect(rollout.verified(bundle, system: Self.system) == .none)
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + 7200, viewers: 0, busy: nil) == .none)
    }

    @Test func anUnverifiedBundleIsRefusedOnce() {
        var rollout = Self.rollout()
        #expect(rollout.unverified(key: "md5-x", reason: "signature verification failed") == .refuse(nil, .unverified("signature verification failed")))
        #expect(rollout.unverified(key: "md5-x", reason: "signature verification failed") == .none)
        #expect(rollout.phase == .idle)
    }

    struct Round: Sendable, CustomTestStringConvertible {
        var name: String
        var secondOfDay: Int64
        var viewers: Int
        var busy: String?
        var expected: MulticastRollout.Action
        var testDescription: String { name }
    }

    /// An accepted bundle: waits outside the window, for fans, for a running install; installs once allowed.
    static let installRounds: [Round] = [
        Round(name: "outside the window", secondOfDay: 3600, viewers: 0, busy: nil, expected: .wait(.policy(.outsideWindows))),
        Round(name: "too many viewers", secondOfDay: 7200, viewers: 5, busy: nil, expected: .wait(.policy(.viewers(5)))),
        Round(name: "the booted slot on trial", secondOfDay: 7200, viewers: 0, busy: "on trial", expected: .wait(.busy("on trial"))),
        Round(name: "in the window, nobody watching", secondOfDay: 7200, viewers: 0, busy: nil, expected: .install(bundle())),
    ]

    @Test(arguments: installRounds) func installsWhenThePolicyAllows(_ c: Round) {
        var rollout = Self.rollout()
        #expect(rollout.verified(Self.bundle(), system: Self.system) == .none)
        #expect(rollout.phase == .pending)
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + c.secondOfDay, viewers: c.viewers, busy: c.busy) == c.expected)
        #expect(rollout.phase == (c.busy == nil && c.viewers == 0 && c.secondOfDay == 7200 ? .installing : .pending))
    }

    /// Waits, then installs, then reboots at its turn (window start + key 600 s), not before.
    @Test func waitsThenInstallsThenRebootsAtItsTurn() {
        var rollout = Self.rollout(key: 600)
        let bundle = Self.bundle()
        _ = rollout.verified(bundle, system: Self.system)
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + 3600, viewers: 0, busy: nil) == .wait(.policy(.outsideWindows)))
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + 7200, viewers: 2, busy: nil) == .wait(.policy(.viewers(2))))
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + 7210, viewers: 0, busy: nil) == .install(bundle))
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + 7220, viewers: 0, busy: "installing") == .wait(.installing))
        #expect(rollout.installFinished(error: nil) == .none)
        let turn = Self.midnight + 7200 + 600
        #expect(rollout.tick(nowUnixSeconds: turn - 1, viewers: 0, busy: nil) == .wait(.policy(.turn(atUnixSeconds: turn))))
        #expect(rollout.tick(nowUnixSeconds: turn, viewers: 0, busy: nil) == .reboot(bundle))
        #expect(rollout.phase == .rebooting)
        #expect(rollout.tick(nowUnixSeconds: turn + 1, viewers: 0, busy: nil) == .none)
        // The carousel repeats the bundle: already decided.
        #expect(rollout.verified(bundle, system: Self.system) == .none)
    }

    @Test func aFailedInstallIsRefusedAndNotRetried() {
        var rollout = Self.rollout([])
        let bundle = Self.bundle()
        _ = rollout.verified(bundle, system: Self.system)
        #expect(rollout.tick(nowUnixSeconds: Self.midnight, viewers: 0, busy: nil) == .install(bundle))
        #expect(rollout.installFinished(error: "No space left on device") == .refuse(bundle, .installFailed("No space left on device")))
        #expect(rollout.phase == .idle)
        #expect(rollout.verified(bundle, system: Self.system) == .none)
    }

    /// A newer bundle heard while one waits replaces it; an older one is refused.
    @Test func aNewerBundleReplacesTheWaitingOne() {
        var rollout = Self.rollout()
        _ = rollout.verified(Self.bundle("a", version: "0.2.0"), system: Self.system)
        #expect(rollout.verified(Self.bundle("b", version: "0.3.0"), system: Self.system) == .none)
        #expect(rollout.pending?.key == "b")
        guard case .refuse(_, .notNewer)? = Optional(rollout.verified(Self.bundle("c", version: "0.2.5"), system: Self.system)) else {
            Issue.record("0.2.5 after 0.3.0 should be refused")
            return
        }
        #expect(rollout.tick(nowUnixSeconds: Self.midnight + 7200, viewers: 0, busy: nil) == .install(Self.bundle("b", version: "0.3.0")))
        // Heard while installing: left for a later round, not decided.
        #expect(rollout.verified(Self.bundle("d", version: "0.4.0"), system: Self.system) == .wait(.installing))
        #expect(!rollout.knows("d"))
    }
}
