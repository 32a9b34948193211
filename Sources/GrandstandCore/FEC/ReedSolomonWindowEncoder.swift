/// The sender side of Reed-Solomon protection windows (`grandstand send`): groups k consecutive
/// source RTP packets into a window and emits its m repair RTP packets right after the window's
/// last source. Pure: packets in, packets out. A sequence gap or SSRC change at the sender closes
/// the current window early (a shorter k in its headers).
public struct ReedSolomonWindowEncoder: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var sourceCount: Int
        public var repairCount: Int
        /// RTP payload type of the repair flow (dynamic, announced in SDP). Default 97.
        public var repairPayloadType: UInt8
        public var firstRepairSequence: UInt16
        public var firstWindowID: UInt32
        /// Windows larger than this (or k + m > 255) are not protected and count `window_error`.
        public var maxSymbols: Int
        /// Windows larger than this count `window_warning`.
        public var recommendedMaxSymbols: Int
        /// Send one header-only marker repair (index 0, a 1-byte zero symbol) for each unsupported
        /// window, so receivers see its shape and count `window_error` (test senders: `grandstand
        /// send --fec reed-solomon:k=200,m=60`). Off by default: nothing is sent for such windows.
        public var markUnsupportedWindows: Bool

        public init(sourceCount: Int, repairCount: Int, repairPayloadType: UInt8 = 97, firstRepairSequence: UInt16 = 0,
                    firstWindowID: UInt32 = 0, maxSymbols: Int = 255, recommendedMaxSymbols: Int = 120,
                    markUnsupportedWindows: Bool = false) {
            self.markUnsupportedWindows = markUnsupportedWindows
            self.sourceCount = sourceCount
            self.repairCount = repairCount
            self.repairPayloadType = repairPayloadType
            self.firstRepairSequence = firstRepairSequence
            self.firstWindowID = firstWindowID
            self.maxSymbols = maxSymbols
            self.recommendedMaxSymbols = recommendedMaxSymbols
        }
    }

    public let configuration: Configuration
    private let math: any ReedSolomonMath
    private var window: [[UInt8]] = []
    private var windowBase: UInt16 = 0
    private var windowSSRC: UInt32 = 0
    private var nextRepairSequence: UInt16
    private var nextWindowID: UInt32
    /// Windows protected (`protection_windows`), unsupported (`window_error`), over the
    /// recommended size (`window_warning`); `repairPackets` counts repairs emitted.
    public private(set) var stats = FECStats()
    /// Encodes the math refused (never with a working ISA-L; the window goes unprotected).
    public private(set) var encodeFailures = 0

    public init(configuration: Configuration, math: any ReedSolomonMath) {
        self.configuration = configuration
        self.math = math
        nextRepairSequence = configuration.firstRepairSequence
        nextWindowID = configuration.firstWindowID
    }

    private var supported: Bool {
        let k = configuration.sourceCount, m = configuration.repairCount
        return k >= 1 && m >= 1 && k + m <= 255 && k + m <= configuration.maxSymbols
    }

    /// Adds one source RTP packet as it is sent; returns the repair packets to send after it.
    /// Packets that are not RTP are ignored (they are not protected).
    public mutating func add(_ packet: [UInt8]) -> [[UInt8]] {
        guard let fields = RTPFields(packet[...]) else { return [] }
        var out: [[UInt8]] = []
        if !window.isEmpty, fields.sequence != windowBase &+ UInt16(truncatingIfNeeded: window.count) || fields.ssrc != windowSSRC {
            out += closeWindow()
        }
        if window.isEmpty {
            windowBase = fields.sequence
            windowSSRC = fields.ssrc
        }
        window.append(packet)
        if window.count >= configuration.sourceCount { out += closeWindow() }
        return out
    }

    /// Closes a partly filled window (end of stream) and returns its repairs.
    public mutating func flush() -> [[UInt8]] { closeWindow() }

    private mutating func closeWindow() -> [[UInt8]] {
        defer { window.removeAll(keepingCapacity: true) }
        guard !window.isEmpty else { return [] }
        let k = window.count, m = configuration.repairCount
        let id = nextWindowID
        nextWindowID &+= 1
        stats.protectionWindows += 1
        if k + m > configuration.recommendedMaxSymbols { stats.windowWarning += 1 }
        guard supported, k + m <= 255 else {
            stats.windowError += 1
            guard configuration.markUnsupportedWindows, k <= 255, m >= 1, m <= 255 else { return [] }
            let marker: [UInt8] = [0]
            stats.repairPackets += 1
            return [repairPacket(k: k, m: m, index: 0, id: id, symbol: marker)]
        }
        let symbolLength = ReedSolomonRepairHeader.symbolOverhead + (window.map(\.count).max() ?? 0)
        let sources = window.map { ReedSolomonRepairHeader.symbol(for: $0, symbolLength: symbolLength) }
        let repairs: [[UInt8]]
        do {
            repairs = try math.encode(sourceCount: k, repairCount: m, symbolLength: symbolLength, sources: sources)
        } catch {
            encodeFailures += 1
            return []
        }
        var packets: [[UInt8]] = []
        packets.reserveCapacity(m)
        for (index, symbol) in repairs.enumerated() {
            packets.append(repairPacket(k: k, m: m, index: index, id: id, symbol: symbol))
        }
        stats.repairPackets += packets.count
        return packets
    }

    /// One repair RTP packet of the current window: RTP header, repair header, symbol.
    private mutating func repairPacket(k: Int, m: Int, index: Int, id: UInt32, symbol: [UInt8]) -> [UInt8] {
        let lastTimestamp = window.last.flatMap { RTPFields($0[...])?.timestamp } ?? 0
        var packet: [UInt8] = []
        packet.reserveCapacity(12 + ReedSolomonRepairHeader.size + symbol.count)
        packet.append(0x80)
        packet.append(configuration.repairPayloadType & 0x7F)
        packet.appendBE16(nextRepairSequence)
        packet.appendBE32(lastTimestamp)
        packet.appendBE32(windowSSRC)
        nextRepairSequence &+= 1
        let header = ReedSolomonRepairHeader(sourceCount: k, repairCount: m, repairIndex: index, windowID: id,
                                             sequenceBase: windowBase, symbolLength: symbol.count, ssrc: windowSSRC,
                                             symbolChecksum: symbol.withUnsafeBufferPointer { math.crc32c($0) })
        packet += header.bytes
        packet += symbol
        return packet
    }
}
