/// What a FEC decoder hands downstream. Packets come out in RTP sequence order, each exactly once:
/// either delivered (as received, or rebuilt from repair data) or reported lost.
public enum FECAction: Sendable, Equatable {
    case deliver(FECDeliveredPacket)
    /// `count` consecutive sequence numbers from `firstSequence` that could not be recovered.
    case lost(firstSequence: UInt16, count: Int, timestampNanoseconds: Int64)
    /// A protection window (Reed-Solomon window or SMPTE 2022-1 matrix) was closed and counted.
    case windowClosed(FECWindowReport)
}

/// One whole RTP packet in sequence order.
public struct FECDeliveredPacket: Sendable, Equatable {
    public var sequenceNumber: UInt16
    /// The complete RTP packet (header and payload), byte-identical to what the sender sent.
    public var bytes: [UInt8]
    /// True when the packet was rebuilt from repair data.
    public var recovered: Bool
    /// Arrival time of the packet, or the time it was recovered.
    public var timestampNanoseconds: Int64

    public init(sequenceNumber: UInt16, bytes: [UInt8], recovered: Bool, timestampNanoseconds: Int64) {
        self.sequenceNumber = sequenceNumber
        self.bytes = bytes
        self.recovered = recovered
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// How a protection window ended (the StadiumVision window counters).
public enum FECWindowResult: String, Sendable, Equatable {
    /// Every source arrived: `window_no_loss`.
    case noLoss = "no_loss"
    /// Sources were lost and all were rebuilt: `window_recovery_successes`.
    case recovered
    /// Some lost source could not be rebuilt (too few repairs, timeout, or a rejected rebuild):
    /// `window_recovery_failures`.
    case failed
    /// The window's shape is not supported (k + m > 255 or beyond the configured maximum); its
    /// sources pass through unprotected: `window_error`.
    case unsupported
}

/// One closed protection window.
public struct FECWindowReport: Sendable, Equatable {
    /// RS: the repair header's window id; 2022-1: the matrix number since the stream's anchor.
    public var windowID: Int64
    /// RS: (k, m). 2022-1: (L·D, L + D) or (L·D, L) for column-only FEC.
    public var sourceCount: Int
    public var repairCount: Int
    /// RTP sequence number of the window's first source.
    public var firstSequence: UInt16
    public var lostSources: Int
    public var recoveredSources: Int
    public var result: FECWindowResult
    /// The window is larger than the configured recommended size (`window_warning`).
    public var warning: Bool
    public var timestampNanoseconds: Int64

    public init(windowID: Int64, sourceCount: Int, repairCount: Int, firstSequence: UInt16, lostSources: Int,
                recoveredSources: Int, result: FECWindowResult, warning: Bool, timestampNanoseconds: Int64) {
        self.windowID = windowID
        self.sourceCount = sourceCount
        self.repairCount = repairCount
        self.firstSequence = firstSequence
        self.lostSources = lostSources
        self.recoveredSources = recoveredSources
        self.result = result
        self.warning = warning
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Window and packet counters of one decoder (one channel); `+` adds channels into a total.
/// `protection_windows` = `window_no_loss` + `window_recovery_successes` +
/// `window_recovery_failures` + `window_error`; `window_warning` counts windows that were
/// also larger than recommended.
public struct FECStats: Sendable, Equatable {
    public var protectionWindows = 0
    public var windowNoLoss = 0
    public var windowRecoverySuccesses = 0
    public var windowRecoveryFailures = 0
    public var windowWarning = 0
    public var windowError = 0
    /// Source packets delivered as received.
    public var sourcePackets = 0
    /// Source packets rebuilt from repair data and delivered.
    public var recoveredPackets = 0
    /// Sequence numbers reported lost (`.lost`).
    public var unrecoveredPackets = 0
    /// Repair (RS) or FEC (2022-1) packets accepted.
    public var repairPackets = 0
    /// Repair packets whose header was malformed or inconsistent with their window: dropped.
    public var repairPacketsMalformed = 0
    /// Repair packets for a window already closed, or repeated: ignored.
    public var repairPacketsLate = 0
    /// Source packets that arrived after their place in the output had passed, or twice: dropped.
    public var sourcePacketsLate = 0
    /// Rebuilt packets that failed validation (never delivered; their window fails).
    public var recoveriesRejected = 0
    /// Source packets that were not RTP: dropped.
    public var sourcePacketsMalformed = 0
    /// The wait last applied to a window, in ms (a level, not a count): 2022-1 the matrix wait
    /// derived from L×D and the packet rate (capped by the bound); Reed-Solomon its timeout.
    public var waitMilliseconds = 0
    /// Windows whose derived wait was longer than the bound and cut to it (2022-1).
    public var windowWaitCapped = 0

    public init() {}

    /// Stable snake_case keys (StadiumVision names first) and values, for stats JSON and metrics.
    public var keyValues: [(key: String, value: Int)] {
        [("protection_windows", protectionWindows), ("window_no_loss", windowNoLoss),
         ("window_recovery_successes", windowRecoverySuccesses), ("window_recovery_failures", windowRecoveryFailures),
         ("window_warning", windowWarning), ("window_error", windowError),
         ("fec_source_packets", sourcePackets), ("fec_recovered_packets", recoveredPackets),
         ("fec_unrecovered_packets", unrecoveredPackets), ("fec_repair_packets", repairPackets),
         ("fec_repair_packets_malformed", repairPacketsMalformed), ("fec_repair_packets_late", repairPacketsLate),
         ("fec_source_packets_late", sourcePacketsLate), ("fec_recoveries_rejected", recoveriesRejected),
         ("fec_source_packets_malformed", sourcePacketsMalformed), ("window_wait_capped", windowWaitCapped),
         ("fec_wait_ms_current", waitMilliseconds)]
    }

    public static func + (a: FECStats, b: FECStats) -> FECStats {
        var sum = a
        sum.protectionWindows += b.protectionWindows
        sum.windowNoLoss += b.windowNoLoss
        sum.windowRecoverySuccesses += b.windowRecoverySuccesses
        sum.windowRecoveryFailures += b.windowRecoveryFailures
        sum.windowWarning += b.windowWarning
        sum.windowError += b.windowError
        sum.sourcePackets += b.sourcePackets
        sum.recoveredPackets += b.recoveredPackets
        sum.unrecoveredPackets += b.unrecoveredPackets
        sum.repairPackets += b.repairPackets
        sum.repairPacketsMalformed += b.repairPacketsMalformed
        sum.repairPacketsLate += b.repairPacketsLate
        sum.sourcePacketsLate += b.sourcePacketsLate
        sum.recoveriesRejected += b.recoveriesRejected
        sum.sourcePacketsMalformed += b.sourcePacketsMalformed
        sum.windowWaitCapped += b.windowWaitCapped
        sum.waitMilliseconds = max(a.waitMilliseconds, b.waitMilliseconds)
        return sum
    }

    /// Counts one closed window.
    mutating func count(_ report: FECWindowReport) {
        protectionWindows += 1
        if report.warning { windowWarning += 1 }
        switch report.result {
        case .noLoss: windowNoLoss += 1
        case .recovered: windowRecoverySuccesses += 1
        case .failed: windowRecoveryFailures += 1
        case .unsupported: windowError += 1
        }
    }
}

/// Limits of both decoders. The config's `fec.timeoutMilliseconds` (the latency budget) sets
/// both waits below; without it each scheme keeps its own default.
public struct FECDecoderConfiguration: Sendable, Equatable {
    /// Reed-Solomon: how long a window may wait for repair data after its first repair (its
    /// repairs follow the window at once, so a fixed wait fits). Default 200 ms.
    public var timeoutNanoseconds: Int64
    /// The most a 2022-1 matrix waits for its FEC and a packet after a gap is held (both schemes).
    /// The wait itself follows the matrix or window and the packet rate (`RepairWait`); this caps it.
    /// Default 1.5 s: one 100-packet matrix at 1 Mbit/s (the column FEC's spread) plus margin.
    public var matrixWaitBoundNanoseconds: Int64
    /// Windows with more source + repair packets than this count `window_warning`
    /// (RS: k + m; 2022-1: L·D + L + D). Default 120.
    public var recommendedMaxSymbols: Int
    /// Windows beyond this (and always RS k + m > 255; 2022-1 L·D > 1024) count `window_error`
    /// and are not decoded. Default 255.
    public var maxSymbols: Int
    /// Packets kept after delivery so later repair data can still use them. Default 1024.
    public var historyPackets: Int

    public init(timeoutNanoseconds: Int64 = 200_000_000, matrixWaitBoundNanoseconds: Int64 = 1_500_000_000,
                recommendedMaxSymbols: Int = 120, maxSymbols: Int = 255, historyPackets: Int = 1024) {
        self.timeoutNanoseconds = timeoutNanoseconds
        self.matrixWaitBoundNanoseconds = matrixWaitBoundNanoseconds
        self.recommendedMaxSymbols = recommendedMaxSymbols
        self.maxSymbols = maxSymbols
        self.historyPackets = historyPackets
    }
}

/// The RTP fixed-header fields FEC needs, read without allocating (RFC 3550 §5.1).
struct RTPFields: Equatable, Sendable {
    var first: UInt8
    var second: UInt8
    var sequence: UInt16
    var timestamp: UInt32
    var ssrc: UInt32

    var payloadType: UInt8 { second & 0x7F }
    var marker: Bool { second & 0x80 != 0 }

    /// nil unless `bytes` holds at least a 12-byte header of version 2.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard let first = bytes.octet(at: 0), first >> 6 == 2, let second = bytes.octet(at: 1),
              let sequence = bytes.be16(at: 2), let timestamp = bytes.be32(at: 4), let ssrc = bytes.be32(at: 8) else { return nil }
        self.first = first
        self.second = second
        self.sequence = sequence
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// The same from raw bytes (the decoders' hot path: no retain of the packet's storage).
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 12, bytes[0] >> 6 == 2 else { return nil }
        first = bytes[0]
        second = bytes[1]
        sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        timestamp = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        ssrc = UInt32(bytes[8]) << 24 | UInt32(bytes[9]) << 16 | UInt32(bytes[10]) << 8 | UInt32(bytes[11])
    }
}

extension Array where Element == UInt8 {
    mutating func appendBE16(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBE32(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
