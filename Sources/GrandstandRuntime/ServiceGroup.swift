import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Short-lived threads of one service (a download each, a log follower each): every thread is
/// joined by the group, either when the next one starts (`reap`) or at `stop()`, so none is
/// left joinable or detached. They share the group's stop signal.
public final class ServiceGroup: Sendable {
    public let name: String
    public let stopSignal = StopSignal()
    private struct State {
        var running: [Int: pthread_t] = [:]
        var finished: [pthread_t] = []
        var next = 0
        var stopping = false
    }
    private let state = Mutex(State())
    private let changed = StopSignal()   // woken when a member ends (never raised)

    /// `name` prefixes the threads' names (`name-N`, cut to 15 bytes).
    public init(name: String) { self.name = name }

    /// Starts `body` on a new member thread. Throws when the group is stopping (ECANCELED) or the
    /// thread cannot be created.
    public func start(_ body: @escaping @Sendable (StopSignal) -> Void) throws(RuntimeError) {
        reap()
        // Checked, created and filed as running in one critical section with `stop()`'s flag:
        // either the member is running before stop looks (and is joined by it), or the start is
        // refused. The member waits for `registered` before its body, and files itself as
        // finished after it, so `finished` only ever holds threads whose body has returned.
        let registered = StopSignal()
        try state.withLock { (state: inout State) throws(RuntimeError) in
            guard !state.stopping else { throw RuntimeError("start \(name) thread: stopping", errno: ECANCELED) }
            state.next += 1
            let id = state.next
            let thread = try ServiceThread.spawn { [self, stopSignal] in
                _ = registered.wait(untilMonotonic: nil)
                body(stopSignal)
                self.state.withLock { state in
                    if let me = state.running.removeValue(forKey: id) { state.finished.append(me) }
                }
                changed.wake()
            }
            ServiceThread.name(thread, String(decoding: Array("\(name)-\(id)".utf8.prefix(15)), as: UTF8.self))
            state.running[id] = thread
        }
        registered.raise()
    }

    /// Joins the members whose bodies have returned.
    public func reap() {
        let done: [pthread_t] = state.withLock { state in
            defer { state.finished.removeAll() }
            return state.finished
        }
        for thread in done { pthread_join(thread, nil) }
    }

    /// Members started and not yet joined (running, or returned and waiting to be reaped).
    public var unjoined: Int { state.withLock { $0.running.count + $0.finished.count } }
    /// Members whose body is still running.
    public var running: Int { state.withLock { $0.running.count } }

    /// Waits until no member's body runs and joins them all (tests: a member files itself as
    /// finished just after its body's last action, which a caller may already have seen).
    public func waitUntilIdle() {
        while true {
            let generation = changed.generation
            reap()
            if running == 0 { break }
            _ = changed.wait(untilMonotonic: nil, changedFrom: generation)
        }
        reap()
    }

    /// Raises the stop signal, then joins every member. Members must return once it is raised;
    /// new starts are refused from here on.
    public func stop() {
        state.withLock { $0.stopping = true }
        stopSignal.raise()
        waitUntilIdle()
    }
}
