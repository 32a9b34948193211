#if canImport(Glibc)
import Glibc
#endif

/// A named POSIX thread for a blocking loop (capture, sender). FoundationEssentials has no
/// Thread, and a capture loop must not run on the cooperative pool.
final class Worker: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: @Sendable () -> Void
    private var started = false

    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// Starts the thread; `body` runs once on it.
    func start() {
        let box = Unmanaged.passRetained(self)
        let result = pthread_create(&thread, nil, { context in
            let worker = Unmanaged<Worker>.fromOpaque(context!).takeRetainedValue()
            worker.body()
            return nil
        }, box.toOpaque())
        if result == 0 {
            started = true
        } else {
            box.release()
            body()
        }
    }

    /// Waits for `body` to return.
    func join() {
        guard started else { return }
        pthread_join(thread, nil)
        started = false
    }
}

/// Wall-clock time in nanoseconds (CLOCK_REALTIME): the clock capture timestamps use, so the
/// pipeline's timeouts compare like with like.
func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC): for liveness and elapsed times.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
