#if canImport(Glibc)
import Glibc
#endif

/// A service's stop request, and the one place its thread waits: a flag raised once, plus a
/// condition variable on CLOCK_MONOTONIC that every wait sits on, so raising it ends any wait
/// (a backoff, a tick, a drain) at once instead of after the next poll.
public final class StopSignal: @unchecked Sendable {
    // @unchecked: wraps a pthread_mutex_t and a pthread_cond_t the compiler cannot see (a
    // condition wait needs the very mutex it sleeps on, which `Synchronization.Mutex` does not
    // expose). `raised` and `generationCount` are read and written only with `mutex` held
    // (`locked`, `waitOnce`); the mutex and condition live on their own allocations (stable
    // addresses) from init to deinit.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private var raised = false
    private var generationCount = 0

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Raises the signal and wakes every waiter. Idempotent.
    public func raise() {
        locked {
            raised = true
            generationCount += 1
        }
        pthread_cond_broadcast(condition)
    }

    public var isRaised: Bool { locked { raised } }

    /// Wakes waiters without raising (a clock stepped, work arrived): they re-check and go on.
    public func wake() {
        locked { generationCount += 1 }
        pthread_cond_broadcast(condition)
    }

    /// Counts raises and wakes; a waiter passes what it saw to `wait(untilMonotonic:changedFrom:)`
    /// so a wake between its check and its wait is not lost.
    public var generation: Int { locked { generationCount } }

    /// Waits until raised or the monotonic `deadline` (nil: no deadline). True when raised.
    public func wait(untilMonotonic deadline: Int64?) -> Bool {
        locked {
            while !raised {
                guard waitOnce(deadline) else { break }
            }
            return raised
        }
    }

    /// Waits until raised, woken after `generation`, or the deadline. True when raised.
    public func wait(untilMonotonic deadline: Int64?, changedFrom generation: Int) -> Bool {
        locked {
            while !raised, generationCount == generation {
                guard waitOnce(deadline) else { break }
            }
            return raised
        }
    }

    /// One condition wait with the mutex held; false once the deadline has passed.
    private func waitOnce(_ deadline: Int64?) -> Bool {
        guard let deadline else {
            pthread_cond_wait(condition, mutex)
            return true
        }
        var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &until) != ETIMEDOUT
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
