/// The rebuild of one window. The code works column by column, so it is solved in two column
/// ranges: the 2-byte length prefix of each symbol (widened to 64 zero columns, ISA-L's SIMD
/// width) and the S − 2 bytes after it. ISA-L reads the repairs and every full-length source
/// where they lie (the decoder prefetched each source on arrival); shorter sources are copied,
/// zero-padded, into one reused scratch. Measured (docs/performance.md, "FEC"): without the
/// prefetch, reading k scattered cold packets in place was slower than gathering them; with it,
/// reading in place is 10–20 % faster.
extension ReedSolomonWindowDecoder {
    /// Buffers reused from window to window (grown, never shrunk; zero allocation in steady state).
    struct RebuildScratch: Sendable {
        var missing: [Int] = []
        var indices: [Int] = []
        var pins: [Pin] = []
        var head: [UInt8] = []
        var headOut: [UInt8] = []
        var padded: [UInt8] = []
        /// Per present source (slot order): where ISA-L reads it in place, 0 when padded in scratch.
        var inPlace: [UInt] = []
        var rebuilt: [UInt8] = []
        var columns: [Int] = []
    }

    /// A repair read in place: body-column pointer `slot` is its storage + `offset`.
    struct Pin: Sendable {
        var bytes: ArraySlice<UInt8>
        var slot: Int
        var offset: Int
    }

    enum RebuildOutcome {
        /// `count` packets rebuilt and stored; `tooLate` when one could no longer be delivered.
        case rebuilt(count: Int, tooLate: Bool)
        /// A survivor or a rebuilt packet failed validation: nothing delivered.
        case rejected
        /// The math refused (e.g. a singular matrix).
        case failed
    }

    struct PinError: Error {}

    /// Length columns are solved 64 wide: below 64 bytes ISA-L takes a scalar path.
    static let headColumns = 64

    /// Rebuilds the `missing` sources of `window` from its present sources and its first
    /// `missing.count` repairs (CRC-checked by the caller), validates every rebuilt packet
    /// (length, zero padding, sequence number, SSRC) and stores them; none if one is wrong.
    mutating func rebuild(_ window: Window, missing: [Int], now: Int64) -> RebuildOutcome {
        let k = window.k, e = missing.count, head = Self.headColumns
        let body = window.symbolLength - ReedSolomonRepairHeader.symbolOverhead
        guard body >= 12, window.repairs.count >= e else { return .rejected }
        // The scratch buffers are swapped out into locals for the closures below and back at the
        // end (a swap moves them: no retain/release, no struct rebuilt and destroyed per window).
        var indices: [Int] = [], pins: [Pin] = [], columns: [Int] = [], inPlace: [UInt] = []
        var headIn: [UInt8] = [], headOut: [UInt8] = [], padded: [UInt8] = [], rebuilt: [UInt8] = []
        // Written out twice, not as a nested function: one capturing these locals made every
        // access to them a dynamic exclusivity check (swift_beginAccess, measured with callgrind).
        swap(&indices, &scratch.indices)
        swap(&pins, &scratch.pins)
        swap(&columns, &scratch.columns)
        swap(&inPlace, &scratch.inPlace)
        swap(&headIn, &scratch.head)
        swap(&headOut, &scratch.headOut)
        swap(&padded, &scratch.padded)
        swap(&rebuilt, &scratch.rebuilt)
        defer {
            pins.removeAll(keepingCapacity: true)
            swap(&indices, &scratch.indices)
            swap(&pins, &scratch.pins)
            swap(&columns, &scratch.columns)
            swap(&inPlace, &scratch.inPlace)
            swap(&headIn, &scratch.head)
            swap(&headOut, &scratch.headOut)
            swap(&padded, &scratch.padded)
            swap(&rebuilt, &scratch.rebuilt)
        }
        indices.removeAll(keepingCapacity: true)
        inPlace.removeAll(keepingCapacity: true)
        if headIn.count < k * head { headIn = [UInt8](repeating: 0, count: k * head) }
        if headOut.count < e * head { headOut = [UInt8](repeating: 0, count: e * head) }
        if rebuilt.count < e * body { rebuilt = [UInt8](repeating: 0, count: e * body) }
        if columns.count != 2 { columns = [head, 0] }
        columns[1] = body

        // Survivors in index order: present sources (each copied straight from its packet into
        // its zero-padded row of the scratch: no retain, no intermediate list), then the repairs.
        let sources = k - e
        if padded.count < sources * body { padded = [UInt8](repeating: 0, count: sources * body) }
        var slot = 0, nextMissing = 0
        for index in 0..<k {
            if nextMissing < e, missing[nextMissing] == index {
                nextMissing += 1
                continue
            }
            let row = slot * body
            // The ring lends the packet's bytes (no copy of the ring, no retain of the packet).
            let length = buffer.withPacket(window.base + Int64(index)) { packet -> Int in
                guard packet.count <= body, let from = packet.baseAddress else { return -1 }
                // A full-length packet is its symbol's body: ISA-L reads it where it lies.
                if packet.count == body {
                    inPlace.append(UInt(bitPattern: from))
                    return packet.count
                }
                inPlace.append(0)
                padded.withUnsafeMutableBufferPointer { pad in
                    guard let to = pad.baseAddress else { return }
                    (to + row).update(from: from, count: packet.count)
                    (to + row + packet.count).update(repeating: 0, count: body - packet.count)
                }
                return packet.count
            } ?? -1
            guard length >= 0 else { return .rejected }
            headIn[slot * head] = UInt8(truncatingIfNeeded: length >> 8)
            headIn[slot * head + 1] = UInt8(truncatingIfNeeded: length)
            indices.append(index)
            slot += 1
        }
        for repair in window.repairs.prefix(e) {
            let start = repair.symbol.startIndex
            headIn[slot * head] = repair.symbol[start]
            headIn[slot * head + 1] = repair.symbol[start + 1]
            pins.append(Pin(bytes: repair.symbol, slot: slot, offset: ReedSolomonRepairHeader.symbolOverhead))
            indices.append(k + repair.index)
            slot += 1
        }
        let math = self.math
        let solved: Bool = withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: 2 * k + 2 * e) { table in
            table.initialize(repeating: nil)
            guard let inputs = table.baseAddress else { return false }
            let outputs = inputs + 2 * k
            return headIn.withUnsafeMutableBufferPointer { headInBuffer in
                headOut.withUnsafeMutableBufferPointer { headOutBuffer in
                    rebuilt.withUnsafeMutableBufferPointer { rebuiltBuffer in
                        padded.withUnsafeMutableBufferPointer { padBuffer in
                            guard let headInBase = headInBuffer.baseAddress, let headOutBase = headOutBuffer.baseAddress,
                                  let rebuiltBase = rebuiltBuffer.baseAddress else { return false }
                            for i in 0..<k { inputs[i] = headInBase + i * head }
                            for j in 0..<e {
                                outputs[j] = headOutBase + j * head
                                outputs[e + j] = rebuiltBase + j * body
                            }
                            if sources > 0 {
                                guard let padBase = padBuffer.baseAddress else { return false }
                                for n in 0..<sources {
                                    inputs[k + n] = UnsafeMutablePointer(bitPattern: inPlace[n]) ?? padBase + n * body
                                }
                            }
                            do {
                                try Self.pinned(pins, from: 0, into: inputs + k) {
                                    try math.reconstruct(sourceCount: k, repairCount: window.m, indices: indices, columns: columns,
                                                         inputs: UnsafeBufferPointer(start: inputs, count: 2 * k),
                                                         outputs: UnsafeBufferPointer(start: outputs, count: 2 * e))
                                }
                                return true
                            } catch {
                                return false
                            }
                        }
                    }
                }
            }
        }
        guard solved else { return .failed }

        // Validate every rebuilt packet before storing any: a wrong survivor would corrupt them all.
        let valid = rebuilt.withUnsafeBufferPointer { all -> Bool in
            guard let base = all.baseAddress else { return false }
            for (j, index) in missing.enumerated() {
                let length = Int(headOut[j * head]) << 8 | Int(headOut[j * head + 1])
                guard length >= 12, length <= body else { return false }
                let packet = UnsafeBufferPointer(start: base + j * body, count: length)
                let padding = UnsafeBufferPointer(start: base + j * body + length, count: body - length)
                guard padding.allSatisfy({ $0 == 0 }), let fields = RTPFields(packet),
                      fields.sequence == UInt16(truncatingIfNeeded: window.base + Int64(index)),
                      fields.ssrc == window.ssrc else { return false }
            }
            return true
        }
        guard valid else { return .rejected }
        var tooLate = false
        for (j, index) in missing.enumerated() {
            let length = Int(headOut[j * head]) << 8 | Int(headOut[j * head + 1])
            let packet = rebuilt.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[(j * body)..<(j * body + length)])) }
            if buffer.insert(ext: window.base + Int64(index), bytes: packet, arrival: now, recovered: true) != .stored { tooLate = true }
        }
        return .rebuilt(count: e, tooLate: tooLate)
    }

    /// Pins `pins[from...]` one inside the other (each storage stays put while `body` runs) and
    /// writes their body-column pointers into `table`.
    static func pinned(_ pins: [Pin], from i: Int, into table: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
                       _ body: () throws -> Void) throws {
        guard i < pins.count else { return try body() }
        try pins[i].bytes.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { throw PinError() }
            table[pins[i].slot] = UnsafeMutablePointer(mutating: base + pins[i].offset)
            try pinned(pins, from: i + 1, into: table, body)
        }
    }
}
