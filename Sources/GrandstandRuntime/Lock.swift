#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex on its own allocation (a stable address, unlike an inout stored property).
/// Swift 6.0's `Synchronization.Mutex` needs newer runtimes on some targets and the cross
/// toolchain is 6.0; this is the one lock the adapters and the executable share.
public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
