import CGSPcap

/// One libpcap handle: a live interface or a capture file (pcap or pcapng), with an optional
/// BPF filter. Owns the `pcap_t` and closes it on deinit. Not thread-safe: one reader at a time,
/// except `breakLoop`, which libpcap allows from another thread.
public final class PacketCapture {
    private let handle: OpaquePointer
    /// Where the packets come from, for messages: the interface name or the file path.
    public let source: String

    private init(handle: OpaquePointer, source: String) {
        self.handle = handle
        self.source = source
    }

    deinit { pcap_close(handle) }

    /// The libpcap version string, e.g. "libpcap version 1.10.3 (with TPACKET_V3)".
    public static var libraryVersion: String { String(cString: pcap_lib_version()) }

    /// Opens a pcap or pcapng file; timestamps are read with nanosecond precision.
    public static func open(file path: String) throws(CaptureError) -> PacketCapture {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer) else {
            throw CaptureError("open \(path)", code: PCAP_ERROR, message: String(errorBuffer: errorBuffer))
        }
        return PacketCapture(handle: handle, source: path)
    }

    /// Opens a live capture on `interface` (needs CAP_NET_RAW). Not promiscuous unless asked:
    /// multicast the box joined already reaches the interface. Errors carry libpcap's status, so
    /// `CaptureError.reason` tells a missing or down interface from a permission problem.
    public static func open(interface: String, options: LiveOptions = LiveOptions()) throws(CaptureError) -> PacketCapture {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_create(interface, &errorBuffer) else {
            throw CaptureError("create \(interface)", code: PCAP_ERROR, message: String(errorBuffer: errorBuffer))
        }
        let capture = PacketCapture(handle: handle, source: interface)
        try capture.check(pcap_set_snaplen(handle, options.snapshotLength), "set snaplen")
        try capture.check(pcap_set_promisc(handle, options.promiscuous ? 1 : 0), "set promisc")
        try capture.check(pcap_set_timeout(handle, options.readTimeoutMilliseconds), "set timeout")
        try capture.check(pcap_set_buffer_size(handle, options.bufferBytes), "set buffer size")
        try capture.check(pcap_set_immediate_mode(handle, options.immediate ? 1 : 0), "set immediate mode")
        try capture.check(pcap_set_tstamp_precision(handle, Int32(PCAP_TSTAMP_PRECISION_NANO)), "set nanosecond timestamps")
        let activated = pcap_activate(handle)
        if activated < 0 {
            throw CaptureError("activate \(interface)", code: activated, message: capture.lastError(or: activated))
        }
        if activated > 0 {
            // PCAP_WARNING_*: the capture works, but not quite as asked (e.g. promiscuous mode unsupported).
            capture.activationWarning = capture.lastError(or: activated)
        }
        if options.nonblocking {
            var nonblockBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
            if pcap_setnonblock(handle, 1, &nonblockBuffer) < 0 {
                throw CaptureError("set nonblocking on \(interface)", code: PCAP_ERROR, message: String(errorBuffer: nonblockBuffer))
            }
        }
        return capture
    }

    /// libpcap's warning from a successful activation, if it gave one.
    public private(set) var activationWarning: String?

    /// Settings of a live capture; the ring buffer is sized for multicast bursts.
    public struct LiveOptions: Sendable, Equatable {
        public var snapshotLength: Int32 = 65535
        /// The kernel ring. With `immediate` off (TPACKET_V3) packets are packed into blocks:
        /// 8 MiB held ≈5400 RTP/TS packets of 1370 bytes in a measurement on veth, ≈60 ms of a
        /// 1 Gbit/s burst. With `immediate` on, libpcap uses TPACKET_V2 frames sized for the
        /// snapshot length (64 KiB where GRO is on), and 8 MiB holds only 128 packets.
        public var bufferBytes: Int32 = 8 << 20
        /// How long a blocking read waits; in TPACKET_V3 also the latest a partly filled block
        /// is handed to the reader (the delivery latency).
        public var readTimeoutMilliseconds: Int32 = 100
        /// Deliver each packet as it arrives (TPACKET_V2; see `bufferBytes` for the cost).
        public var immediate = true
        /// Off: the box joins the groups it wants, so they reach the interface anyway.
        public var promiscuous = false
        /// `next()` returns nil at once when nothing is queued; poll `selectableFileDescriptor`
        /// (or `LiveCapture.wait`) between reads. What a driver loop with a stop wants.
        public var nonblocking = false
        public init() {}
    }

    /// Compiles and installs a BPF filter (pcap-filter(7) syntax); "" accepts everything.
    public func setFilter(_ expression: String) throws(CaptureError) {
        var program = bpf_program()
        try check(pcap_compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN), "compile filter \"\(expression)\"")
        defer { pcap_freecode(&program) }
        try check(pcap_setfilter(handle, &program), "install filter \"\(expression)\"")
    }

    /// The next packet that passes the filter; nil at the end of a file or when a live read
    /// times out with nothing to deliver.
    public func next() throws(CaptureError) -> CapturedPacket? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let result = pcap_next_ex(handle, &header, &data)
        switch result {
        case 1:
            guard let header, let data else { return nil }
            let seconds = Int64(header.pointee.ts.tv_sec)
            let fraction = Int64(header.pointee.ts.tv_usec) // nanoseconds: opened with NANO precision
            return CapturedPacket(
                timestampNanoseconds: seconds * 1_000_000_000 + fraction,
                bytes: Array(UnsafeBufferPointer(start: data, count: Int(header.pointee.caplen))),
                originalLength: Int(header.pointee.len))
        case 0, PCAP_ERROR_BREAK:
            return nil
        default:
            throw CaptureError("read \(source)", code: result, message: lastError(or: result))
        }
    }

    /// Like `next()`, but copies the packet's bytes into `buffer` (replacing its contents, keeping
    /// its capacity) instead of allocating an array per packet: for readers that are done with
    /// one packet before asking for the next (replay). Nil at the end of a file or on a timeout.
    public func next(into buffer: inout [UInt8]) throws(CaptureError) -> (timestampNanoseconds: Int64, originalLength: Int)? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let result = pcap_next_ex(handle, &header, &data)
        switch result {
        case 1:
            guard let header, let data else { return nil }
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(header.pointee.caplen)))
            let seconds = Int64(header.pointee.ts.tv_sec)
            let fraction = Int64(header.pointee.ts.tv_usec) // nanoseconds: opened with NANO precision
            return (seconds * 1_000_000_000 + fraction, Int(header.pointee.len))
        case 0, PCAP_ERROR_BREAK:
            return nil
        default:
            throw CaptureError("read \(source)", code: result, message: lastError(or: result))
        }
    }

    /// The link-layer header type of every packet (a DLT_ value).
    public var linkType: LinkType {
        let value = pcap_datalink(handle)
        return LinkType(rawValue: value, name: pcap_datalink_val_to_name(value).map { String(cString: $0) } ?? "DLT_\(value)")
    }

    /// Counters from the kernel for a live capture (pcap_stats(3pcap)).
    public func statistics() throws(CaptureError) -> CaptureStatistics {
        var stats = pcap_stat()
        try check(pcap_stats(handle, &stats), "read statistics")
        return CaptureStatistics(received: UInt64(stats.ps_recv), droppedByKernel: UInt64(stats.ps_drop),
                                 droppedByInterface: UInt64(stats.ps_ifdrop))
    }

    /// A descriptor to poll for readability (live captures only), or nil.
    public var selectableFileDescriptor: Int32? {
        let fd = pcap_get_selectable_fd(handle)
        return fd >= 0 ? fd : nil
    }

    /// Makes a blocked `next()` on another thread return nil soon.
    public func breakLoop() { pcap_breakloop(handle) }

    private func check(_ status: Int32, _ operation: String) throws(CaptureError) {
        if status < 0 { throw CaptureError("\(operation) on \(source)", code: status, message: lastError(or: status)) }
    }

    private func lastError(or status: Int32) -> String {
        let text = String(cString: pcap_geterr(handle))
        return text.isEmpty ? String(cString: pcap_statustostr(status)) : text
    }
}

/// One packet as captured: when, the bytes kept (up to the snapshot length), and its full size.
public struct CapturedPacket: Sendable, Equatable {
    public let timestampNanoseconds: Int64
    public let bytes: [UInt8]
    public let originalLength: Int
}

public struct LinkType: Sendable, Equatable {
    public let rawValue: Int32
    public let name: String
    public static let ethernet: Int32 = 1 // DLT_EN10MB
}

/// pcap_stats(3pcap) counters: packets that passed the filter, dropped because the ring was full
/// (the reader fell behind: raise `bufferBytes`), and dropped by the interface or its driver.
public struct CaptureStatistics: Sendable, Equatable {
    public let received: UInt64
    public let droppedByKernel: UInt64
    public let droppedByInterface: UInt64

    public init(received: UInt64, droppedByKernel: UInt64, droppedByInterface: UInt64) {
        self.received = received
        self.droppedByKernel = droppedByKernel
        self.droppedByInterface = droppedByInterface
    }
}

extension String {
    /// Text of a NUL-terminated C buffer such as libpcap's PCAP_ERRBUF_SIZE error buffer.
    init(errorBuffer: [CChar]) {
        self.init(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
