/// How long an SMPTE 2022-1 matrix waits for its FEC once its media went by, derived from the
/// stream: column FEC is sent after its matrix, spread over the next one (GStreamer
/// `rtpst2022-1-fecenc` and FFmpeg `prompeg` send column c's FEC with packet c·D of the next
/// matrix; SMPTE 2022-1 §5.3 latency), so the wait is one matrix time at the measured packet
/// rate plus a jitter margin, capped by the configured bound (the latency budget). Row FEC
/// follows its row at once, so a row-only stream waits one row time. Reed-Solomon windows use it
/// too (blocks of k packets): their repairs follow the window at once, but a gap early in a window
/// waits for the rest of the window to be sent. Pure: arrival times in.
///
/// The rate is measured over blocks of as many packets as the sender needs to send a matrix's
/// FEC, not packet by packet: real-time senders send a video frame's packets back to back
/// (FFmpeg `-re`: ~13 packets within a millisecond, then 40 ms of nothing at 25 fps), and a
/// per-packet average right after such a burst says the next matrix takes a third of its real
/// time (docs/fec.md, "Matrix wait"). The slowest of the last four blocks and the block under
/// way is used, and nothing until four blocks were measured (senders start with a burst: FFmpeg
/// `-re` sent its first matrix at over twice its rate): a wait that is too long only delays
/// giving up on a matrix that cannot be repaired, one that is too short loses a matrix that could.
struct RepairWait: Sendable {
    /// The wait a matrix gets, and whether the derived wait exceeded the bound (and was cut to it).
    struct Applied: Sendable, Equatable {
        var nanoseconds: Int64
        var capped: Bool
    }

    /// The most a matrix waits (`FECDecoderConfiguration.matrixWaitBoundNanoseconds`).
    let bound: Int64
    /// Mean interval (ns per sequence number) of the last `Self.blocks` whole blocks, newest last.
    private var recent: (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
    private var wholeBlocks = 0
    /// The block under way: its first packet, and the newest packet seen.
    private var blockSequence: Int64 = 0
    private var blockArrival: Int64 = 0
    private var lastSequence: Int64 = 0
    private var lastArrival: Int64 = 0
    private var started = false

    static let blocks = 4

    /// Jitter margin: an eighth of the derived time plus this floor (sender pacing, network, and
    /// the capture thread's batching).
    static let marginFloor: Int64 = 50_000_000

    init(bound: Int64) {
        self.bound = max(0, bound)
    }

    /// Mean interval (ns per media packet) the wait is derived from: the slowest of the last four
    /// whole blocks and the block under way; nil until four blocks were measured.
    var interval: Int64? {
        guard wholeBlocks >= Self.blocks else { return nil }
        let whole = max(max(recent.0, recent.1), max(recent.2, recent.3))
        guard lastSequence > blockSequence else { return whole }
        return max(whole, (lastArrival - blockArrival) / (lastSequence - blockSequence))
    }

    /// One media packet arrived (extended sequence number, arrival time). `blockPackets`: the
    /// packets a block spans (the matrix's repair span). A gap in sequence numbers (loss) spreads
    /// its time over the packets it skipped; reordered packets are ignored; an interval longer
    /// than the bound is a stall, not a rate: the block under way starts again after it.
    mutating func observe(sequence: Int64, arrival: Int64, blockPackets: Int) {
        guard started else {
            (blockSequence, blockArrival, lastSequence, lastArrival, started) = (sequence, arrival, sequence, arrival, true)
            return
        }
        guard sequence > lastSequence else { return }
        let elapsed = arrival - lastArrival
        (lastSequence, lastArrival) = (sequence, arrival)
        guard elapsed >= 0, elapsed <= bound else {
            (blockSequence, blockArrival) = (sequence, arrival)
            return
        }
        guard sequence - blockSequence >= Int64(max(1, blockPackets)) else { return }
        let mean = (arrival - blockArrival) / (sequence - blockSequence)
        recent = (recent.1, recent.2, recent.3, mean)
        wholeBlocks += 1
        (blockSequence, blockArrival) = (sequence, arrival)
    }

    /// The wait before the rate is known (fewer than four blocks): the bound.
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
        self = RepairWait(bound: bound)
    }
}
