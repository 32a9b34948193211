/// One transport object being rebuilt from its encoding symbols: a flat buffer of the source
/// symbols (zero-padded to whole symbols), which symbols each block holds, and for
/// Reed-Solomon the repair symbols a block keeps until it can decode. Symbols may come in any
/// order, across carousel rounds, and twice.
struct ObjectAssembly: Sendable {
    enum Outcome: Equatable { case stored, duplicate, blockComplete, objectComplete }

    let info: FECObjectInfo
    let blocks: [FECObjectInfo.Block]
    private(set) var data: [UInt8]
    private var have: [Bool]
    private var blockHave: [Int]
    private var blockDone: [Bool]
    private var repairs: [Int: [Int: [UInt8]]] = [:]
    private(set) var blocksDone = 0
    private(set) var sourceSymbolsHeld = 0
    private(set) var symbolsRecovered = 0
    private(set) var decodeFailures = 0
    let sourceSymbolCount: Int

    /// Nil when the OTI gives no usable partitioning.
    init?(info: FECObjectInfo) {
        guard let blocks = info.blocks, info.transferLength <= UInt64(Int.max / 2) else { return nil }
        self.info = info
        self.blocks = blocks
        let t = blocks.last.map { $0.firstSymbol + $0.sourceSymbols } ?? 0
        sourceSymbolCount = t
        data = [UInt8](repeating: 0, count: t * info.symbolLength)
        have = [Bool](repeating: false, count: t)
        blockHave = [Int](repeating: 0, count: blocks.count)
        blockDone = [Bool](repeating: false, count: blocks.count)
    }

    /// Bytes this assembly holds (for the receiver's memory budget).
    var bufferedBytes: Int { data.count + repairs.values.reduce(0) { $0 + $1.count * info.symbolLength } }

    var isComplete: Bool { blocksDone == blocks.count }

    /// The object's bytes once complete.
    var object: [UInt8] { Array(data.prefix(Int(info.transferLength))) }

    /// Length a symbol at (block, esi) must have: E, except the object's last source symbol,
    /// which may also come short (exactly the object's remaining bytes).
    private func accepts(length: Int, block: Int, esi: Int) -> Bool {
        if length == info.symbolLength { return true }
        let b = blocks[block]
        guard esi < b.sourceSymbols, b.firstSymbol + esi == sourceSymbolCount - 1 else { return false }
        let tail = Int(info.transferLength) - (sourceSymbolCount - 1) * info.symbolLength
        return length == tail
    }

    /// Adds one symbol. `math` decodes Reed-Solomon blocks (nil: repairs are not usable).
    mutating func add(block sbn: Int, esi: Int, symbol: ArraySlice<UInt8>, math: (any ReedSolomonMath)?) -> Result<Outcome, FluteDrop> {
        guard sbn < blocks.count else { return .failure(.symbolOutOfRange) }
        let block = blocks[sbn]
        guard esi < block.encodingSymbols else { return .failure(.symbolOutOfRange) }
        guard accepts(length: symbol.count, block: sbn, esi: esi) else { return .failure(.badSymbolLength) }
        if blockDone[sbn] { return .success(.duplicate) }
        let e = info.symbolLength
        if esi < block.sourceSymbols {
            let index = block.firstSymbol + esi
            if have[index] { return .success(.duplicate) }
            have[index] = true
            sourceSymbolsHeld += 1
            blockHave[sbn] += 1
            Self.copy(symbol, into: &data, at: index * e)
        } else {
            guard math != nil else { return .failure(.unsupportedFEC) }
            if repairs[sbn]?[esi] != nil { return .success(.duplicate) }
            var padded = Array(symbol)
            if padded.count < e { padded.append(contentsOf: [UInt8](repeating: 0, count: e - padded.count)) }
            repairs[sbn, default: [:]][esi] = padded
        }
        let held = blockHave[sbn] + (repairs[sbn]?.count ?? 0)
        guard held >= block.sourceSymbols else { return .success(.stored) }
        if blockHave[sbn] < block.sourceSymbols {
            guard let math, decode(sbn, math: math) else { return .success(.stored) }
        }
        blockDone[sbn] = true
        repairs[sbn] = nil
        blocksDone += 1
        return .success(blocksDone == blocks.count ? .objectComplete : .blockComplete)
    }

    /// Rebuilds block `sbn`'s missing sources from any k held symbols; false if the code refuses
    /// (its repairs are then dropped and the block waits for the carousel's next round).
    private mutating func decode(_ sbn: Int, math: any ReedSolomonMath) -> Bool {
        let block = blocks[sbn]
        let k = block.sourceSymbols, e = info.symbolLength
        var received: [Int: [UInt8]] = [:]
        for j in 0..<k where have[block.firstSymbol + j] {
            let start = (block.firstSymbol + j) * e
            received[j] = Array(data[start..<(start + e)])
        }
        for (esi, bytes) in (repairs[sbn] ?? [:]).sorted(by: { $0.key < $1.key }) where received.count < k { received[esi] = bytes }
        let rebuilt: [Int: [UInt8]]
        do {
            rebuilt = try math.reconstruct(sourceCount: k, repairCount: block.encodingSymbols - k, symbolLength: e, received: received)
        } catch {
            decodeFailures += 1
            repairs[sbn] = nil
            return false
        }
        for j in 0..<k where !have[block.firstSymbol + j] {
            guard let bytes = rebuilt[j], bytes.count == e else {
                decodeFailures += 1
                repairs[sbn] = nil
                return false
            }
            Self.copy(bytes[...], into: &data, at: (block.firstSymbol + j) * e)
            have[block.firstSymbol + j] = true
            sourceSymbolsHeld += 1
            symbolsRecovered += 1
        }
        blockHave[sbn] = k
        return true
    }

    /// memcpy of `bytes` into `buffer` at `offset` (the caller checked the bounds).
    private static func copy(_ bytes: ArraySlice<UInt8>, into buffer: inout [UInt8], at offset: Int) {
        guard offset >= 0, offset + bytes.count <= buffer.count else { return }
        buffer.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { source in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                (to + offset).copyMemory(from: from, byteCount: source.count)
            }
        }
    }
}
