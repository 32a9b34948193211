#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex. Swift 6.0's `Synchronization.Mutex` needs newer runtimes on some targets,
/// and the cross toolchain is 6.0; this is the small portable equivalent.
final class Mutex: @unchecked Sendable {
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
