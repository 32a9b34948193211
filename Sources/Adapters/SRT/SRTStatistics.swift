import CGSSRTSystem

/// A connection's receive-side counters from libsrt (`srt_bstats`, totals since it connected),
/// named after the fields they come from.
public struct SRTStatistics: Sendable, Equatable {
    /// `pktRecvTotal`: data packets received.
    public var packetsReceived: Int64 = 0
    /// `pktRcvLossTotal`: packets found missing (each is asked for again: ARQ).
    public var packetsLost: Int = 0
    /// `pktRcvDropTotal`: packets given up as too late to play (lost for good).
    public var packetsDropped: Int = 0
    /// `pktRcvRetrans` (never cleared, so since it connected): retransmitted packets received.
    public var packetsRetransmitted: Int = 0
    /// `pktRcvUndecryptTotal`: packets that could not be decrypted.
    public var packetsUndecrypted: Int = 0
    /// `byteRecvTotal`.
    public var bytesReceived: UInt64 = 0
    /// `msRTT`: the smoothed round-trip time.
    public var rttMilliseconds: Double = 0
    /// `mbpsRecvRate`: the receive rate.
    public var receiveMbps: Double = 0
    /// `msRcvTsbPdDelay`: the latency agreed in the handshake.
    public var latencyMilliseconds: Int = 0

    public init() {}

    init(_ perf: SRT_TRACEBSTATS) {
        packetsReceived = perf.pktRecvTotal
        packetsLost = Int(perf.pktRcvLossTotal)
        packetsDropped = Int(perf.pktRcvDropTotal)
        packetsRetransmitted = Int(perf.pktRcvRetrans)
        packetsUndecrypted = Int(perf.pktRcvUndecryptTotal)
        bytesReceived = perf.byteRecvTotal
        rttMilliseconds = perf.msRTT
        receiveMbps = perf.mbpsRecvRate
        latencyMilliseconds = Int(perf.msRcvTsbPdDelay)
    }
}
