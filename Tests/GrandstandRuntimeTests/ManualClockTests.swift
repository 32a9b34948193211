import GrandstandRuntime
import Synchronization
import Testing

/// A service on a manual clock moves only when the test steps time: no sleeping in tests.
struct ManualClockTests {
    @Test func sleeperWakesExactlyWhenTimeReachesItsDeadline() throws {
        let clock = ManualClock()
        let ticks = Mutex<[Int64]>([])
        let thread = try ServiceThread(name: "ticker") { stop in
            var next = clock.monotonicNanoseconds() + 1_000_000_000
            while !clock.wait(untilMonotonic: next, or: stop) {
                ticks.withLock { $0.append(clock.monotonicNanoseconds()) }
                next += 1_000_000_000
            }
        }
        defer { thread.stop() }
        let start = clock.monotonicNanoseconds()
        #expect(clock.waitForSleepers(1))
        clock.advance(by: 999_999_999)
        #expect(ticks.withLock { $0 }.isEmpty)
        for step in 1...3 {
            clock.advance(by: step == 1 ? 1 : 1_000_000_000)
            #expect(clock.waitForSleepers(1))
            // The thread is parked again only after it recorded this tick.
            #expect(ticks.withLock { $0.count } == step)
        }
        #expect(ticks.withLock { $0 } == [start + 1_000_000_000, start + 2_000_000_000, start + 3_000_000_000])
    }

    @Test func stopEndsAManualSleepWithoutTimeMoving() throws {
        let clock = ManualClock()
        let thread = try ServiceThread(name: "manual-stop") { stop in
            _ = clock.wait(nanoseconds: 10_000_000_000, or: stop)
        }
        #expect(clock.waitForSleepers(1))
        let before = clock.monotonicNanoseconds()
        thread.stop()
        #expect(clock.sleepers == 0)
        #expect(clock.monotonicNanoseconds() == before)
    }

    @Test func wallStepsLeaveTheMonotonicClockAlone() {
        let clock = ManualClock(wall: 1_000, monotonic: 5)
        clock.stepWall(by: -500)
        #expect(clock.wallNanoseconds() == 500)
        #expect(clock.monotonicNanoseconds() == 5)
        clock.advance(by: 10)
        #expect(clock.wallNanoseconds() == 510 && clock.monotonicNanoseconds() == 15)
    }
}
