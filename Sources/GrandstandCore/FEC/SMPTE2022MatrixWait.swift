/// How long an SMPTE 2022-1 matrix waits for its FEC once its media went by, derived from the
/// stream: column FEC is sent after its matrix, spread over the next one (GStreamer
/// `rtpst2022-1-fecenc` and FFmpeg `prompeg` send column c's FEC with packet c·D of the next
/// matrix; SMPTE 2022-1 §5.3 latency), so the wait is one matrix time at the measured
/// packet rate plus a jitter margin, capped by the configured bound (the latency budget). Row
/// FEC follows its row at once, so a row-only stream waits one row time. Pure: arrival times in.
struct SMPTE2022MatrixWait: Sendable, Equatable {
    /// The wait a matrix gets, and whether the derived wait exceeded the bound (and was cut to it).
    struct Applied: Sendable, Equatable {
        var nanoseconds: Int64
        var capped: Bool
    }

    /// The most a matrix waits (`FECDecoderConfiguration.matrixWaitBoundNanoseconds`).
    let bound: Int64
    /// Mean media inter-arrival interval (ns per sequence number), an EWMA with gain 1/16 as
    /// RFC 3550 §6.4.1 smooths jitter; nil until two packets arrived in order.
    private(set) var interval: Int64? = nil
    private var lastSequence: Int64 = 0
    private var lastArrival: Int64 = 0
    private var started = false

    /// Jitter margin: an eighth of the derived time plus this floor (sender pacing, network, and
    /// the capture thread's batching).
    static let marginFloor: Int64 = 50_000_000

    init(bound: Int64) {
        self.bound = max(0, bound)
    }

    /// One media packet arrived (extended sequence number, arrival time). A gap in sequence
    /// numbers (loss) spreads the time over the packets it skipped; reordered packets and
    /// intervals longer than the bound (a stall, not a rate) are not samples.
    mutating func observe(sequence: Int64, arrival: Int64) {
        guard started else {
            (lastSequence, lastArrival, started) = (sequence, arrival, true)
            return
        }
        guard sequence > lastSequence else { return }
        let elapsed = arrival - lastArrival
        if elapsed >= 0, elapsed <= bound {
            let sample = elapsed / (sequence - lastSequence)
            interval = interval.map { $0 + (sample - $0) / 16 } ?? sample
        }
        (lastSequence, lastArrival) = (sequence, arrival)
    }

    /// The wait before the rate is known: the bound.
    var unknown: Applied { Applied(nanoseconds: bound, capped: false) }

    /// The wait for a matrix whose repairs take `repairSpan` media packets to be sent (L·D with
    /// column FEC, L with row FEC only): that many intervals, an eighth more, plus the floor.
    func wait(repairSpan: Int) -> Applied {
        guard let interval else { return unknown }
        let time = interval * Int64(max(1, repairSpan))
        let derived = time + time / 8 + Self.marginFloor
        return derived > bound ? Applied(nanoseconds: bound, capped: true) : Applied(nanoseconds: derived, capped: false)
    }

    /// How long a packet after a gap may wait when no open matrix awaits the gap (before the
    /// matrices are aligned): the gap may open a matrix, so the rest of that matrix (`span`
    /// intervals) and then its wait, capped by the bound.
    func hold(span: Int, after wait: Applied) -> Int64 {
        guard let interval else { return bound }
        return min(bound, wait.nanoseconds + interval * Int64(max(1, span)))
    }

    /// The sender restarted: the rate is measured again.
    mutating func reset() {
        interval = nil
        started = false
    }
}
