#if canImport(Glibc)
import Glibc
#endif

/// A live capture a driver loop can keep running for days: nonblocking reads, a poll with a
/// timeout and a wake-up, the BPF filter replaced while running, counters that survive re-opens,
/// and a clean close when the interface goes away so the caller can `open()` it again later.
///
/// The loop: `open()`; then `wait` → `readAvailable` → (filter changes via `setFilter`). When a
/// read throws an error whose `isInterfaceUnavailable` is true, the capture is already closed:
/// report it, retry `open()` every few seconds (it throws `.noSuchDevice` / `.interfaceDown`
/// until the interface is back), then re-join the groups (`SilenceWatch.interfaceReturned`).
/// Not thread-safe, except `CaptureWakeup.signal()`.
public final class LiveCapture {
    public let interface: String
    public let options: PacketCapture.LiveOptions
    /// The filter in force (or to install on the next open); "" accepts everything.
    public private(set) var filter: String
    /// Successful opens so far (1 after the first; each re-open adds one).
    public private(set) var openCount = 0

    private var capture: PacketCapture?
    /// Counters of the handles already closed, so `statistics()` never goes backwards.
    private var closedTotals = CaptureStatistics(received: 0, droppedByKernel: 0, droppedByInterface: 0)

    public init(interface: String, filter: String = "", options: PacketCapture.LiveOptions = LiveCapture.defaultOptions) {
        self.interface = interface
        self.filter = filter
        self.options = options
    }

    /// Nonblocking reads, a 4 MiB TPACKET_V3 ring whose blocks are handed over at the latest
    /// every 5 ms, not promiscuous. Not immediate mode: libpcap then falls back to TPACKET_V2,
    /// whose fixed frames are sized for the snapshot length (64 KiB on interfaces with GRO), so
    /// 8 MiB would hold only 128 packets; V3 packs packets into blocks. libpcap's V3 blocks are
    /// 256 KiB and each is handed over at the latest after the 5 ms timeout, so below ≈ 400 Mbit/s
    /// the 16 blocks of 4 MiB last 80 ms of a stalled reader (docs/capture.md). The block timeout
    /// is the latency a packet may wait in the ring (part publish delay, docs/performance.md);
    /// the ring is resident memory.
    public static var defaultOptions: PacketCapture.LiveOptions {
        var options = PacketCapture.LiveOptions()
        options.nonblocking = true
        options.immediate = false
        options.bufferBytes = 4 << 20
        options.readTimeoutMilliseconds = 5
        return options
    }

    public var isOpen: Bool { capture != nil }

    /// The link-layer type of the open capture (what FrameDecoder needs), nil while closed.
    public var linkType: LinkType? { capture?.linkType }

    /// The descriptor to poll while open.
    public var fileDescriptor: Int32? { capture?.selectableFileDescriptor }

    /// libpcap's activation warning for the open capture, if any.
    public var activationWarning: String? { capture?.activationWarning }

    /// Opens (or re-opens) the interface and installs the current filter.
    @discardableResult
    public func open() throws(CaptureError) -> LinkType {
        close()
        let opened = try PacketCapture.open(interface: interface, options: options)
        if !filter.isEmpty { try opened.setFilter(filter) }
        guard opened.selectableFileDescriptor != nil else {
            throw CaptureError("get selectable descriptor on \(interface)", code: -1, message: "libpcap gave no descriptor to poll")
        }
        capture = opened
        openCount += 1
        return opened.linkType
    }

    /// Closes the handle (counters are kept); `open()` starts again.
    public func close() {
        guard let capture else { return }
        if let last = try? capture.statistics() { closedTotals = closedTotals.adding(last) }
        self.capture = nil
    }

    /// Replaces the BPF filter; returns false (and does nothing) when `expression` is the one in
    /// force. While closed it is only remembered. A bad expression throws and keeps the old one.
    @discardableResult
    public func setFilter(_ expression: String) throws(CaptureError) -> Bool {
        guard expression != filter else { return false }
        try capture?.setFilter(expression)
        filter = expression
        return true
    }

    public enum WaitResult: Sendable, Equatable {
        /// Packets (or an error) to read: call `readAvailable`.
        case readable
        case timedOut
        /// `CaptureWakeup.signal()` was called (the wake-up is drained).
        case woken
        /// Nothing to poll: the capture is closed. Sleeps for the timeout unless woken.
        case closed
    }

    /// Blocks up to `timeoutMilliseconds` (-1: forever) for packets or a wake-up.
    public func wait(timeoutMilliseconds: Int32, wakeup: CaptureWakeup? = nil) throws(CaptureError) -> WaitResult {
        var fds: [pollfd] = []
        if let fd = fileDescriptor { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        if let wakeup { fds.append(pollfd(fd: wakeup.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return .timedOut }
            throw CaptureError("poll \(interface)", errno: errno)
        }
        if let wakeup, fds.last?.revents ?? 0 != 0 {
            wakeup.drain()
            return .woken
        }
        guard isOpen else { return .closed }
        if let first = fds.first, first.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
            try reportSocketError(first.revents)
        }
        return ready > 0 ? .readable : .timedOut
    }

    /// What `wait(_:timeoutMilliseconds:wakeup:)` found for several captures at once.
    public struct MultiWait: Sendable {
        /// The wake-up was signalled (and drained).
        public var woken = false
        /// Per capture, in the order given: true when it has packets to read; an error when its
        /// packet socket failed (that capture is closed already, the others are untouched).
        public var results: [Result<Bool, CaptureError>] = []
    }

    /// Blocks up to `timeoutMilliseconds` for packets on any of `captures` (closed ones are
    /// skipped) or a wake-up: one poll over every descriptor, so one thread serves several
    /// interfaces. Throws only when poll itself fails.
    public static func wait(_ captures: [LiveCapture], timeoutMilliseconds: Int32,
                            wakeup: CaptureWakeup? = nil) throws(CaptureError) -> MultiWait {
        var fds: [pollfd] = []
        var slots: [Int?] = []
        for capture in captures {
            if let fd = capture.fileDescriptor {
                slots.append(fds.count)
                fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            } else {
                slots.append(nil)
            }
        }
        if let wakeup { fds.append(pollfd(fd: wakeup.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return MultiWait(results: captures.map { _ in .success(false) }) }
            throw CaptureError("poll \(captures.map(\.interface).joined(separator: ", "))", errno: errno)
        }
        var outcome = MultiWait()
        if let wakeup, fds.last?.revents ?? 0 != 0 {
            wakeup.drain()
            outcome.woken = true
        }
        for (capture, slot) in zip(captures, slots) {
            guard let slot else { outcome.results.append(.success(false)); continue }
            let revents = fds[slot].revents
            do {
                if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { try capture.reportSocketError(revents) }
                outcome.results.append(.success(revents != 0))
            } catch {
                outcome.results.append(.failure(error))
            }
        }
        return outcome
    }

    /// The packet socket flagged an error: the kernel sets ENETDOWN on it when the interface goes
    /// down or away. A nonblocking libpcap read never polls, so it would not notice; read the
    /// error here (SO_ERROR, which also clears it), close, and throw it.
    private func reportSocketError(_ revents: Int16) throws(CaptureError) {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if let fd = fileDescriptor, getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
        if code == 0 && revents & Int16(POLLERR) == 0 { code = revents & Int16(POLLNVAL) != 0 ? EBADF : ENETDOWN }
        guard code != 0 else { return }
        close()
        throw CaptureError("capture on \(interface)", errno: code)
    }

    /// Reads what is queued, up to `maximum` packets, handing each to `body`; returns how many.
    /// On a read error the capture is closed first, then the error is thrown.
    @discardableResult
    public func readAvailable(maximum: Int = 4096, _ body: (CapturedPacket) -> Void) throws(CaptureError) -> Int {
        guard let capture else { return 0 }
        var count = 0
        do {
            while count < maximum, let packet = try capture.next() {
                body(packet)
                count += 1
            }
        } catch {
            close()
            throw error
        }
        return count
    }

    /// Kernel counters summed over every handle this capture has had (pcap_stats(3pcap)):
    /// packets received by the filter, dropped because the ring was full, dropped by the interface.
    public func statistics() -> CaptureStatistics {
        guard let capture, let current = try? capture.statistics() else { return closedTotals }
        return closedTotals.adding(current)
    }
}

extension CaptureStatistics {
    public func adding(_ other: CaptureStatistics) -> CaptureStatistics {
        CaptureStatistics(received: received + other.received, droppedByKernel: droppedByKernel + other.droppedByKernel,
                          droppedByInterface: droppedByInterface + other.droppedByInterface)
    }
}
