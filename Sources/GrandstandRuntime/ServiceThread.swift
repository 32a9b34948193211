import CGSRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A long-running service's own POSIX thread (NIOPosix's `ThreadPosix` is the model): named, so
/// `top -H`, `/proc/PID/task/*/comm` and crash dumps say which service it is; started only if
/// the thread really exists (a failed `pthread_create` is an error, never the body run on the
/// caller); stopped by raising its `StopSignal`, which ends any wait on it at once, and joined.
public final class ServiceThread: Sendable {
    /// The thread's name as the kernel shows it (at most 15 bytes; longer names are cut).
    public let name: String
    /// Raised by `stop()`; the body returns soon after (its waits go through it).
    public let stopSignal: StopSignal
    private let handle: Mutex<pthread_t?>

    /// Starts `body` on a new thread named `name`. The body gets the stop signal and must return
    /// once it is raised.
    public init(name: String, stop: StopSignal = StopSignal(),
                _ body: @escaping @Sendable (StopSignal) -> Void) throws(RuntimeError) {
        self.name = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
        self.stopSignal = stop
        // Named twice: by the thread itself before the body (its own reads see it) and from here
        // before init returns (the caller's reads see it), whichever runs first.
        let threadName = self.name
        let thread = try Self.spawn { [stop] in
            Self.name(pthread_self(), threadName)
            body(stop)
        }
        Self.name(thread, threadName)
        handle = Mutex(thread)
    }

    /// Raises the stop signal and waits for the body to return. Idempotent; from the thread
    /// itself it only raises (a thread cannot join itself).
    public func stop(join: Bool = true) {
        stopSignal.raise()
        guard join else { return }
        self.join()
    }

    /// Waits for the body to return (without asking it to). Idempotent.
    public func join() {
        let thread: pthread_t? = handle.withLock { handle in
            guard let thread = handle, pthread_equal(thread, pthread_self()) == 0 else { return nil }
            handle = nil
            return thread
        }
        if let thread { pthread_join(thread, nil) }
    }

    deinit {
        // An owner that forgot `stop()`: still end and reap the thread rather than leak it.
        if let thread = handle.withLock({ $0 }), pthread_equal(thread, pthread_self()) == 0 {
            stopSignal.raise()
            pthread_join(thread, nil)
        }
    }

    /// Threads in this process now whose kernel name starts with `prefix` (all with ""), read
    /// from `/proc/self/task/*/comm`: what the leak tests compare.
    public static func countInProcess(named prefix: String = "") -> Int {
        guard let directory = opendir("/proc/self/task") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first != "." else { continue }
            if prefix.isEmpty || threadName(tid: tid).hasPrefix(prefix) { count += 1 }
        }
        return count
    }

    private static func threadName(tid: String) -> String {
        guard let file = fopen("/proc/self/task/\(tid)/comm", "r") else { return "" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 32)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The calling thread's kernel name (`comm`).
    public static func currentName() -> String {
        var buffer = [CChar](repeating: 0, count: 16)
        _ = gs_rt_thread_name(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func name(_ thread: pthread_t, _ name: String) {
        _ = gs_rt_set_thread_name(thread, name)
    }

    /// Creates a joinable thread running `body`; the error carries pthread_create's code.
    static func spawn(_ body: @escaping @Sendable () -> Void) throws(RuntimeError) -> pthread_t {
        let box = Unmanaged.passRetained(Trampoline(body))
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<Trampoline>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, box.toOpaque())
        guard created == 0 else {
            box.release()
            throw RuntimeError("pthread_create", errno: created)
        }
        return thread
    }
}

/// The body handed to the new thread.
private final class Trampoline: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
