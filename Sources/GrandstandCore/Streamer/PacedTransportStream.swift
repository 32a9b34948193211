/// A transport stream file analysed for pacing: whole 188-byte packets and the send time of
/// each, derived from the PCRs (ISO/IEC 13818-1 §2.4.2.2) of the first PID that carries one.
/// Built once per file and shared (copy-on-write) by every channel sending it.
public struct PacedTransportStream: Sendable {
    /// PCR ticks per wrap: 33-bit base × 300 + 9-bit extension (27 MHz).
    public static let pcrModulus: Int64 = (Int64(1) << 33) * 300

    /// The packets, starting at the first sync byte; a trailing partial packet is left out.
    public let bytes: [UInt8]
    public let packetCount: Int
    /// Send time of each packet relative to packet 0, in ns (non-decreasing).
    public let packetOffsets: [Int64]
    /// The loop period: the last packet's offset plus one packet time at the final rate.
    public let durationNanoseconds: Int64
    public let pcrPID: UInt16?
    /// Packet indices carrying a PCR on `pcrPID`.
    public let pcrPacketIndices: [Int]
    /// PCR steps that were not a plausible forward step (backward jumps, gaps > 100 ms per
    /// packet) and were bridged at the previous rate instead.
    public let pcrDiscontinuities: Int
    /// For continuity-counter rewriting on loops: per PID, the first and last counter of packets
    /// with payload.
    public let continuity: [UInt16: (first: UInt8, last: UInt8)]

    /// Analyses `data`. Streams without any PCR are paced at `fallbackBitsPerSecond`.
    public init(_ data: [UInt8], fallbackBitsPerSecond: Int = 1_000_000) throws(StreamerError) {
        guard let start = PacedTransportStream.firstSync(data) else {
            throw StreamerError("not an MPEG-TS: no run of 188-byte packets with sync bytes 0x47")
        }
        let count = (data.count - start) / TSPacket.size
        bytes = start == 0 && count * TSPacket.size == data.count
            ? data : Array(data[start..<(start + count * TSPacket.size)])
        packetCount = count
        // Packet time at the fallback rate, in 27 MHz ticks.
        let fallback = max(Int64(TSPacket.size * 8) * 27_000_000 / Int64(max(fallbackBitsPerSecond, 1)), 1)

        // PCRs of the first PID that carries one; continuity counters of every PID.
        var pid: UInt16? = nil
        var pcrs: [(index: Int, pcr: Int64)] = []
        var counters: [UInt16: (first: UInt8, last: UInt8)] = [:]
        for i in 0..<count {
            let base = i * TSPacket.size
            guard bytes[base] == TSPacket.syncByte else { continue }
            let packetPID = UInt16(bytes[base + 1] & 0x1F) << 8 | UInt16(bytes[base + 2])
            let control = bytes[base + 3] >> 4 & 0x3
            if control & 0x1 != 0, packetPID != TSPacket.nullPID {
                let cc = bytes[base + 3] & 0x0F
                counters[packetPID] = (counters[packetPID]?.first ?? cc, cc)
            }
            if let pcr = PacedTransportStream.pcr(bytes, at: base), pid == nil || pid == packetPID {
                pid = packetPID
                pcrs.append((i, pcr))
            }
        }
        pcrPID = pid
        pcrPacketIndices = pcrs.map(\.index)
        continuity = counters

        // Anchors on one continuous timeline in 27 MHz ticks: PCR steps unwrapped across the
        // 2^33 wrap; an implausible step is bridged at the previous per-packet rate.
        var anchors: [(index: Int, ticks: Int64)] = []
        var rates: [Int64] = []          // ticks per packet after each anchor
        var discontinuities = 0
        var rate = fallback
        for (n, entry) in pcrs.enumerated() {
            guard n > 0 else { anchors.append((entry.index, 0)); continue }
            let previous = pcrs[n - 1]
            let packets = Int64(entry.index - previous.index)
            let step = ((entry.pcr - previous.pcr) % Self.pcrModulus + Self.pcrModulus) % Self.pcrModulus
            if packets > 0, step > 0, step < Self.pcrModulus / 2, step / packets <= 2_700_000 {   // ≤ 100 ms a packet
                rate = max(step / packets, 1)
                anchors.append((entry.index, anchors[anchors.count - 1].ticks + step))
            } else {
                discontinuities += 1
                anchors.append((entry.index, anchors[anchors.count - 1].ticks + packets * rate))
            }
            rates.append(rate)
        }
        pcrDiscontinuities = discontinuities
        let firstRate = rates.first ?? fallback
        let lastRate = rates.last ?? fallback

        var ticks = [Int64](repeating: 0, count: count)
        if anchors.isEmpty {
            for i in 0..<count { ticks[i] = Int64(i) * fallback }
        } else {
            var a = 0
            for i in 0..<count {
                while a + 1 < anchors.count && anchors[a + 1].index <= i { a += 1 }
                let anchor = anchors[a]
                if i < anchor.index {            // before the first PCR: extrapolate backwards
                    ticks[i] = anchor.ticks - Int64(anchor.index - i) * firstRate
                } else if a + 1 < anchors.count { // between two PCRs: interpolate
                    let next = anchors[a + 1]
                    ticks[i] = anchor.ticks + (next.ticks - anchor.ticks) * Int64(i - anchor.index)
                        / Int64(next.index - anchor.index)
                } else {                          // after the last PCR: extrapolate forwards
                    ticks[i] = anchor.ticks + Int64(i - anchor.index) * lastRate
                }
            }
        }
        let origin = ticks.first ?? 0
        packetOffsets = ticks.map { ($0 - origin) * 1000 / 27 }
        durationNanoseconds = ((ticks.last ?? 0) - origin + lastRate) * 1000 / 27
    }

    /// The 27 MHz PCR of the packet at `base`, when its adaptation field carries one (§2.4.3.4).
    static func pcr(_ bytes: [UInt8], at base: Int) -> Int64? {
        let control = bytes[base + 3] >> 4 & 0x3
        guard control & 0x2 != 0, bytes[base + 4] >= 7, bytes[base + 5] & 0x10 != 0 else { return nil }
        var pcrBase: Int64 = 0
        for k in 0..<4 { pcrBase = pcrBase << 8 | Int64(bytes[base + 6 + k]) }
        pcrBase = pcrBase << 1 | Int64(bytes[base + 10] >> 7)
        let pcrExtension = Int64(bytes[base + 10] & 0x01) << 8 | Int64(bytes[base + 11])
        return pcrBase * 300 + pcrExtension
    }

    /// The first offset where three consecutive packets start with 0x47 (or a lone one for tiny inputs).
    static func firstSync(_ data: [UInt8]) -> Int? {
        guard data.count >= TSPacket.size else { return nil }
        for start in 0..<min(TSPacket.size, data.count - TSPacket.size + 1) {
            var run = 0
            var offset = start
            while offset + TSPacket.size <= data.count, data[offset] == TSPacket.syncByte, run < 3 {
                run += 1
                offset += TSPacket.size
            }
            if run == 3 || (run > 0 && offset + TSPacket.size > data.count) { return start }
        }
        return nil
    }
}
