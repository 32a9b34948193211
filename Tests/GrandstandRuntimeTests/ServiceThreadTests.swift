import GrandstandRuntime
import Synchronization
import Testing
import TestSupport

/// The service runtime's contract: named threads, a stop that ends any wait at once and joins,
/// errors instead of silent fallbacks, and groups that leave no thread unjoined.
struct ServiceThreadTests {
    @Test func threadCarriesItsNameAndStopsPromptlyFromALongWait() throws {
        let seen = Mutex<String?>(nil)
        let clock = SystemClock()
        let thread = try ServiceThread(name: "test-service") { stop in
            seen.withLock { $0 = ServiceThread.currentName() }
            _ = clock.wait(nanoseconds: 3_600_000_000_000, or: stop)   // an hour: only stop ends it
        }
        let before = clock.monotonicNanoseconds()
        while seen.withLock({ $0 }) == nil { _ = StopSignal().wait(untilMonotonic: clock.monotonicNanoseconds() + 1_000_000) }
        thread.stop()
        let took = clock.monotonicNanoseconds() - before
        #expect(seen.withLock { $0 } == "test-service")
        #expect(took < 1_000_000_000, "stop took \(took) ns")
        thread.stop()   // idempotent
    }

    @Test func longNamesAreCutToTheKernelLimit() throws {
        let thread = try ServiceThread(name: "a-very-long-service-name") { stop in _ = stop.wait(untilMonotonic: nil) }
        defer { thread.stop() }
        #expect(thread.name == "a-very-long-ser")
    }

    @Test func stopFromTheThreadItselfDoesNotDeadlock() throws {
        let box = Mutex<ServiceThread?>(nil)
        let ready = StopSignal()
        let thread = try ServiceThread(name: "self-stop") { stop in
            _ = ready.wait(untilMonotonic: nil)
            box.withLock { $0 }?.stop()   // only raises: a thread cannot join itself
            #expect(stop.isRaised)
        }
        box.withLock { $0 = thread }
        ready.raise()
        thread.join()
        #expect(thread.stopSignal.isRaised)
    }

    @Test func signalWaitsEndAtTheirDeadline() {
        let clock = SystemClock()
        let signal = StopSignal()
        let start = clock.monotonicNanoseconds()
        #expect(signal.wait(untilMonotonic: start + 20_000_000) == false)
        #expect(clock.monotonicNanoseconds() - start >= 20_000_000)
        signal.raise()
        #expect(signal.wait(untilMonotonic: nil) == true)
        #expect(clock.wait(nanoseconds: 3_600_000_000_000, or: signal) == true)
    }

    @Test func creationFailureIsAnErrorNamingTheOperation() {
        let error = RuntimeError("pthread_create", errno: 11)
        #expect(error.description.hasPrefix("pthread_create: "))
        #expect(error.description.hasSuffix("(errno 11)"))
    }

    /// 1,000 short-lived members: every one is joined, and the process's thread count returns
    /// to where it was (no joinable thread is left behind, none is detached).
    @Test func groupJoinsEveryMember() throws {
        let group = ServiceGroup(name: "burst")
        let ran = Mutex(0)
        for _ in 0..<1_000 {
            try group.start { _ in ran.withLock { $0 += 1 } }
        }
        group.stop()
        #expect(ran.withLock { $0 } == 1_000)
        #expect(group.unjoined == 0)
        try expectNoThreads(named: "burst-")
        #expect(throws: RuntimeError.self) { try group.start { _ in } }
    }

    /// Starts racing a stop: every start either lands before the stop looks (and is joined by
    /// it) or is refused; nothing started is left unjoined.
    @Test func startsRacingAStopLeaveNothingUnjoined() throws {
        for round in 0..<20 {
            let group = ServiceGroup(name: "race\(round)")
            let starter = try ServiceThread(name: "starter") { _ in
                while (try? group.start { stop in _ = stop.wait(untilMonotonic: nil) }) != nil {}
            }
            group.stop()
            starter.join()
            #expect(group.unjoined == 0, "round \(round)")
        }
    }

    @Test func groupStopEndsMembersWaitingOnTheSignal() throws {
        let group = ServiceGroup(name: "waiters")
        for _ in 0..<8 {
            try group.start { stop in _ = SystemClock().wait(nanoseconds: 3_600_000_000_000, or: stop) }
        }
        #expect(group.running <= 8)
        #expect(ServiceThread.countInProcess(named: "waiters-") <= 8)
        let clock = SystemClock()
        let start = clock.monotonicNanoseconds()
        group.stop()
        #expect(clock.monotonicNanoseconds() - start < 1_000_000_000)
        #expect(group.unjoined == 0)
        try expectNoThreads(named: "waiters-")
    }
}

/// No thread named `prefix…` is left in /proc/self/task. Natively a joined thread is gone at
/// once; under qemu-user the joiner is woken (the guest's CLONE_CHILD_CLEARTID) a moment before
/// the emulator's host thread has exited, so /proc is read until it shows none (bounded).
func expectNoThreads(named prefix: String) throws {
    try waitFor("no \(prefix)* thread left in /proc/self/task", timeout: 10) { ServiceThread.countInProcess(named: prefix) == 0 }
}
