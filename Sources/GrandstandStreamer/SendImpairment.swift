import GrandstandCore

/// Network faults injected by `grandstand send --impair` on media and repair flows (never on SAP),
/// deterministic for a seed, so fault tests work where tc netem is missing (docs/reliability.md):
/// `duplicate=P` sends a packet twice, `reorder=P` holds a packet back behind the next one of its
/// flow, `jitter=MS` delays each packet by 0…MS ms (later ones may overtake it, as with netem),
/// `burst=N/M` drops the last N consecutive packets of every M of each flow.
public struct SendImpairment {
    var duplicate = 0.0
    var reorder = 0.0
    var jitterNanoseconds: Int64 = 0
    var burst: (length: Int, every: Int)?
    private var random: UInt64
    private var held: [ScheduledDatagram] = []
    private var reorderHeld: [String: ScheduledDatagram] = [:]
    private var positions: [String: Int] = [:]
    /// `drainedLate`: datagrams still held when the run ended (a signal, an error), sent with the deletions.
    private(set) var counts = (duplicated: 0, reordered: 0, delayed: 0, burstDropped: 0, drainedLate: 0)

    /// Parses `duplicate=0.01,reorder=0.02,jitter=5,burst=20/1000`; nil with the reason when malformed.
    public static func parse(_ text: String, seed: UInt64) -> Result<SendImpairment, SendSpec.Failure> {
        var impairment = SendImpairment(random: seed | 1)
        for item in text.split(separator: ",") {
            let kv = item.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { return .failure(.init("--impair: \"\(item)\" is not key=value")) }
            let value = String(kv[1])
            switch kv[0] {
            case "duplicate", "reorder":
                guard let p = Double(value), (0...1).contains(p) else {
                    return .failure(.init("--impair: \(kv[0]) must be a probability 0-1"))
                }
                if kv[0] == "duplicate" { impairment.duplicate = p } else { impairment.reorder = p }
            case "jitter":
                guard let ms = Double(value), (0...10_000).contains(ms) else { return .failure(.init("--impair: jitter must be 0-10000 ms")) }
                impairment.jitterNanoseconds = Int64(ms * 1e6)
            case "burst":
                let parts = value.split(separator: "/").compactMap { Int($0) }
                guard parts.count == 2, parts[0] >= 1, parts[1] > parts[0] else {
                    return .failure(.init("--impair: burst must be N/M with 1 ≤ N < M"))
                }
                impairment.burst = (parts[0], parts[1])
            default:
                return .failure(.init("--impair: unknown fault \"\(kv[0])\" (duplicate, reorder, jitter, burst)"))
            }
        }
        return .success(impairment)
    }

    private init(random: UInt64) { self.random = random }

    /// The datagrams to send now: `due` after the faults, plus held ones whose time has come.
    mutating func process(_ due: [ScheduledDatagram], now: Int64) -> [ScheduledDatagram] {
        var out: [ScheduledDatagram] = []
        for datagram in due {
            guard datagram.flow != "sap" else { out.append(datagram); continue }
            let position = positions[datagram.flow, default: 0]
            positions[datagram.flow] = position + 1
            if let burst, position % burst.every >= burst.every - burst.length {
                counts.burstDropped += 1
                continue
            }
            var copies = [datagram]
            if chance(duplicate) { copies.append(datagram); counts.duplicated += 1 }
            for var copy in copies {
                if let earlier = reorderHeld.removeValue(forKey: copy.flow) {
                    schedule(copy, now: now, into: &out)
                    schedule(earlier, now: now, into: &out)
                    continue
                }
                if chance(reorder) {
                    copy.dueNanoseconds = now
                    reorderHeld[copy.flow] = copy
                    counts.reordered += 1
                    continue
                }
                schedule(copy, now: now, into: &out)
            }
        }
        // A held-back packet waits at most 50 ms for a successor.
        for (flow, datagram) in reorderHeld where now - datagram.dueNanoseconds > 50_000_000 {
            reorderHeld[flow] = nil
            out.append(datagram)
        }
        let ready = held.filter { $0.dueNanoseconds <= now }
        held.removeAll { $0.dueNanoseconds <= now }
        return out + ready.sorted { $0.dueNanoseconds < $1.dueNanoseconds }
    }

    /// When a held datagram is next due (for the send loop's sleep).
    var nextDueNanoseconds: Int64? {
        let times = held.map(\.dueNanoseconds) + reorderHeld.values.map { $0.dueNanoseconds + 50_000_000 }
        return times.min()
    }

    /// Everything still held, in due order (before the SAP deletions).
    mutating func drain() -> [ScheduledDatagram] {
        defer { held = []; reorderHeld = [:] }
        counts.drainedLate += held.count + reorderHeld.count
        return (held + Array(reorderHeld.values)).sorted { $0.dueNanoseconds < $1.dueNanoseconds }
    }

    public var summary: String {
        "impairment: \(counts.duplicated) duplicated, \(counts.reordered) reordered, \(counts.delayed) delayed, "
            + "\(counts.burstDropped) dropped in bursts, \(counts.drainedLate) held past the run"
    }

    private mutating func schedule(_ datagram: ScheduledDatagram, now: Int64, into out: inout [ScheduledDatagram]) {
        guard jitterNanoseconds > 0 else { out.append(datagram); return }
        var delayed = datagram
        delayed.dueNanoseconds = now + Int64(next() % UInt64(jitterNanoseconds + 1))
        held.append(delayed)
        counts.delayed += 1
    }

    private mutating func chance(_ p: Double) -> Bool { p > 0 && Double(next() >> 11) * 0x1p-53 < p }

    /// xorshift64*.
    private mutating func next() -> UInt64 {
        random ^= random >> 12
        random ^= random << 25
        random ^= random >> 27
        return random &* 0x2545_F491_4F6C_DD1D
    }
}
