/// RTP interarrival jitter (RFC 3550 §6.4.1, computed as in Appendix A.8): the mean deviation
/// of the difference D in relative transit time between consecutive packets, smoothed with
/// gain 1/16, in timestamp units. Arrival times are passed in (capture time), never read.
public struct JitterEstimator: Sendable, Equatable {
    /// The media clock rate in Hz; 90 000 for MPEG-TS over RTP (RFC 3551 §6, payload type 33).
    public let clockRate: Int64
    /// J in timestamp units, as §6.4.1 defines it.
    public private(set) var jitter: Double = 0
    private var lastTransit: UInt32? = nil

    public init(clockRate: Int64 = 90_000) { self.clockRate = clockRate }

    /// The jitter in seconds.
    public var jitterSeconds: Double { clockRate > 0 ? jitter / Double(clockRate) : 0 }

    /// The §6.4.4 report value: J truncated to an integer.
    public var reportedJitter: UInt32 { UInt32(jitter) }

    /// Updates J with a packet's RTP timestamp and its arrival time (ns since any fixed epoch).
    public mutating func record(rtpTimestamp: UInt32, arrivalNanoseconds: Int64) {
        // Arrival in timestamp units, modulo 2^32 like the RTP timestamp (A.8: `arrival`).
        let arrival = UInt32(truncatingIfNeeded: ticks(arrivalNanoseconds))
        let transit = arrival &- rtpTimestamp
        defer { lastTransit = transit }
        guard let last = lastTransit else { return }
        let d = Int32(bitPattern: transit &- last)
        jitter += (Double(d.magnitude) - jitter) / 16
    }

    /// Nanoseconds to clock ticks without overflow for any Int64 time (floor division).
    func ticks(_ nanoseconds: Int64) -> Int64 {
        let billion: Int64 = 1_000_000_000
        var seconds = nanoseconds / billion
        var fraction = nanoseconds % billion
        if fraction < 0 { seconds -= 1; fraction += billion }
        return seconds &* clockRate &+ fraction * clockRate / billion
    }
}
