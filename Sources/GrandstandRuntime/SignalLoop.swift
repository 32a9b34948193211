#if canImport(Glibc)
import Glibc
#endif

/// The daemon's main thread: blocks SIGTERM/SIGINT/SIGHUP and waits for them synchronously
/// (sigtimedwait), running `tick` about once per `interval`. No async signal handlers at all.
public struct SignalLoop {
    public enum Signal { case terminate, reload }

    private var set = sigset_t()

    public init() {
        sigemptyset(&set)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        // Block before any thread starts, so every thread inherits the mask and the signals
        // queue for sigtimedwait instead of killing the process.
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits up to `milliseconds` for a signal; nil on timeout.
    public mutating func wait(milliseconds: Int) -> Signal? {
        var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        switch sigtimedwait(&set, nil, &timeout) {
        case SIGTERM, SIGINT: return .terminate
        case SIGHUP: return .reload
        default: return nil
        }
    }
}
