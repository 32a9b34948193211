/// One transport object being rebuilt from its encoding symbols (RFC 6726, RFC 5052 §9.1): the
/// symbols go to a `SymbolStore` (source symbols at their place, zero-padded to whole symbols;
/// Reed-Solomon repairs in an area past them), the assembly keeps only which symbols each block
/// holds. Symbols may come in any order, across carousel rounds, and twice.
///
/// With a spool file, blocks being received are held in memory (`HeldBlock`, up to
/// `blockBufferBytes`) and reach the file in one write when complete, decoded in memory: one
/// write per block instead of one per packet, and nothing read back. When more blocks are open
/// than fit, the least recently used one is written out as it is and goes on symbol by symbol.
struct ObjectAssembly: Sendable {
    enum Outcome: Equatable { case stored, duplicate, blockComplete, objectComplete }

    let info: FECObjectInfo
    let blocks: [FECObjectInfo.Block]
    private var store: any SymbolStore
    /// Whether the store is a spool file (adapter) rather than memory.
    let spooled: Bool
    private var have: [Bool]
    private var blockHave: [Int]
    private var blockDone: [Bool]
    /// Repair ESIs held per block (their bytes are in the store's repair area).
    private var repairs: [Int: Set<Int>] = [:]
    /// First repair slot of each block in the repair area.
    private let repairSlot: [Int]
    private(set) var blocksDone = 0
    private(set) var sourceSymbolsHeld = 0
    private(set) var symbolsRecovered = 0
    private(set) var decodeFailures = 0
    /// The store error that failed the object (it is then unusable).
    private(set) var storeError: SymbolStoreError?
    let sourceSymbolCount: Int
    /// Open blocks held in memory (spooled objects), by source block number.
    private var held: [Int: HeldBlock] = [:]
    /// Blocks written out before they completed: they go on symbol by symbol in the store.
    private var spilled: Set<Int> = []
    /// Most blocks held at once (0: every symbol is written as it comes).
    private let heldLimit: Int
    private var useCount = 0
    /// The last written block's buffer, reused for the next one (no fresh pages per block).
    private var spare: [UInt8] = []

    /// Nil when the OTI gives no usable partitioning. `store` nil: memory. `blockBufferBytes`:
    /// memory for blocks held while received (spooled objects).
    init?(info: FECObjectInfo, store: (any SymbolStore)? = nil, blockBufferBytes: Int = 0) {
        guard let blocks = info.blocks, info.transferLength <= UInt64(Int.max / 2) else { return nil }
        self.info = info
        self.blocks = blocks
        let t = blocks.last.map { $0.firstSymbol + $0.sourceSymbols } ?? 0
        sourceSymbolCount = t
        self.store = store ?? MemorySymbolStore(sourceBytes: t * info.symbolLength)
        spooled = store != nil
        have = [Bool](repeating: false, count: t)
        blockHave = [Int](repeating: 0, count: blocks.count)
        blockDone = [Bool](repeating: false, count: blocks.count)
        var slot = 0
        repairSlot = blocks.map { block in
            defer { slot += block.encodingSymbols - block.sourceSymbols }
            return slot
        }
        let largest = (blocks.map(\.encodingSymbols).max() ?? 1) * info.symbolLength
        heldLimit = store == nil ? 0 : blockBufferBytes / max(largest, 1)
    }

    /// Bytes of memory this assembly holds (for the receiver's memory budget).
    var bufferedBytes: Int {
        store.memoryBytes + (spooled ? Self.bookkeepingBytes(blocks) + spare.count + held.values.reduce(0) { $0 + $1.bytes } : 0)
    }

    /// What a spooled object's assembly keeps besides held blocks: a flag per source symbol,
    /// three words per block.
    static func bookkeepingBytes(_ blocks: [FECObjectInfo.Block]) -> Int {
        (blocks.last.map { $0.firstSymbol + $0.sourceSymbols } ?? 0) + 3 * 8 * blocks.count
    }

    var isComplete: Bool { blocksDone == blocks.count }

    private var sourceBytes: Int { sourceSymbolCount * info.symbolLength }

    private func offset(block sbn: Int, esi: Int) -> Int {
        let block = blocks[sbn]
        if esi < block.sourceSymbols { return (block.firstSymbol + esi) * info.symbolLength }
        return sourceBytes + (repairSlot[sbn] + esi - block.sourceSymbols) * info.symbolLength
    }

    /// Length a symbol at (block, esi) must have: E, except the object's last source symbol,
    /// which may also come short (exactly the object's remaining bytes).
    private func accepts(length: Int, block: Int, esi: Int) -> Bool {
        if length == info.symbolLength { return true }
        let b = blocks[block]
        guard esi < b.sourceSymbols, b.firstSymbol + esi == sourceSymbolCount - 1 else { return false }
        let tail = Int(info.transferLength) - (sourceSymbolCount - 1) * info.symbolLength
        return length == tail
    }

    /// Adds one symbol. `math` decodes Reed-Solomon blocks (nil: repairs are not usable). A store
    /// failure is `.storeFailed` (with `storeError`): the object cannot complete.
    mutating func add(block sbn: Int, esi: Int, symbol: ArraySlice<UInt8>, math: (any ReedSolomonMath)?) -> Result<Outcome, FluteDrop> {
        guard storeError == nil else { return .failure(.storeFailed) }
        guard sbn < blocks.count else { return .failure(.symbolOutOfRange) }
        let block = blocks[sbn]
        guard esi < block.encodingSymbols else { return .failure(.symbolOutOfRange) }
        guard accepts(length: symbol.count, block: sbn, esi: esi) else { return .failure(.badSymbolLength) }
        if blockDone[sbn] { return .success(.duplicate) }
        do {
            if esi < block.sourceSymbols {
                let index = block.firstSymbol + esi
                if have[index] { return .success(.duplicate) }
                try put(symbol, block: sbn, esi: esi)
                have[index] = true
                sourceSymbolsHeld += 1
                blockHave[sbn] += 1
            } else {
                guard math != nil else { return .failure(.unsupportedFEC) }
                if repairs[sbn]?.contains(esi) == true { return .success(.duplicate) }
                try put(symbol, block: sbn, esi: esi)   // repairs are always E long
                repairs[sbn, default: []].insert(esi)
            }
            let count = blockHave[sbn] + (repairs[sbn]?.count ?? 0)
            guard count >= block.sourceSymbols else { return .success(.stored) }
            if blockHave[sbn] < block.sourceSymbols {
                guard let math, try decode(sbn, math: math) else { return .success(.stored) }
            }
            if let done = held.removeValue(forKey: sbn) {   // the whole block in one write
                try store.write(done.source[...], at: offset(block: sbn, esi: 0))
                spare = done.source
            }
        } catch {
            storeError = error
            return .failure(.storeFailed)
        }
        blockDone[sbn] = true
        dropRepairs(sbn)
        blocksDone += 1
        return .success(blocksDone == blocks.count ? .objectComplete : .blockComplete)
    }

    private mutating func dropRepairs(_ sbn: Int) {
        guard let esis = repairs.removeValue(forKey: sbn) else { return }
        held[sbn]?.repairs = [:]
        // A held block's repairs never reached the store (written whole, it took only its sources).
        if heldLimit == 0 || spilled.contains(sbn) { store.discard(esis.map { offset(block: sbn, esi: $0) }) }
    }

    /// Puts one symbol where its block lives: in memory while the block is held, else the store.
    private mutating func put(_ symbol: ArraySlice<UInt8>, block sbn: Int, esi: Int) throws(SymbolStoreError) {
        if heldLimit > 0, !spilled.contains(sbn), held[sbn] == nil {
            if held.count >= heldLimit { try spillLeastRecentlyUsed() }
            held[sbn] = HeldBlock(sourceBytes: blocks[sbn].sourceSymbols * info.symbolLength, reusing: &spare)
        }
        guard held[sbn] != nil else { return try store.write(symbol, at: offset(block: sbn, esi: esi)) }
        useCount += 1
        held[sbn]?.lastUse = useCount
        let k = blocks[sbn].sourceSymbols, e = info.symbolLength
        held[sbn]?.put(symbol, esi: esi, sourceSymbols: k, symbolLength: e)
    }

    /// One symbol of block `sbn`, `symbolLength` bytes (zero-padded), from memory or the store.
    private func symbol(block sbn: Int, esi: Int) throws(SymbolStoreError) -> [UInt8] {
        if let block = held[sbn] { return block.symbol(esi: esi, sourceSymbols: blocks[sbn].sourceSymbols, symbolLength: info.symbolLength) }
        return try store.read(at: offset(block: sbn, esi: esi), count: info.symbolLength)
    }

    /// Writes the held block used longest ago to the store as it is (runs of held source
    /// symbols, each repair in its slot); from then on its symbols go to the store one by one.
    private mutating func spillLeastRecentlyUsed() throws(SymbolStoreError) {
        guard let (sbn, block) = held.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        held[sbn] = nil
        spilled.insert(sbn)
        let first = blocks[sbn].firstSymbol, k = blocks[sbn].sourceSymbols, e = info.symbolLength
        var j = 0
        while j < k {
            guard have[first + j] else { j += 1; continue }
            var end = j
            while end < k, have[first + end] { end += 1 }
            try store.write(block.source[(j * e)..<(end * e)], at: offset(block: sbn, esi: j))
            j = end
        }
        for (esi, bytes) in block.repairs { try store.write(bytes[...], at: offset(block: sbn, esi: esi)) }
    }

    /// Rebuilds block `sbn`'s missing sources from any k held symbols (RFC 5510 §8), in memory or
    /// read back from the store (a spilled block); false if the code refuses (its repairs are then
    /// dropped and the block waits for the carousel's next round).
    private mutating func decode(_ sbn: Int, math: any ReedSolomonMath) throws(SymbolStoreError) -> Bool {
        let block = blocks[sbn]
        let k = block.sourceSymbols, e = info.symbolLength
        var received: [Int: [UInt8]] = [:]
        for j in 0..<k where have[block.firstSymbol + j] { received[j] = try symbol(block: sbn, esi: j) }
        for esi in (repairs[sbn] ?? []).sorted() where received.count < k { received[esi] = try symbol(block: sbn, esi: esi) }
        guard let rebuilt = try? math.reconstruct(sourceCount: k, repairCount: block.encodingSymbols - k, symbolLength: e, received: received),
              (0..<k).allSatisfy({ have[block.firstSymbol + $0] || rebuilt[$0]?.count == e }) else {
            decodeFailures += 1
            dropRepairs(sbn)
            return false
        }
        for j in 0..<k where !have[block.firstSymbol + j] {
            guard let bytes = rebuilt[j] else { continue }
            try put(bytes[...], block: sbn, esi: j)
            have[block.firstSymbol + j] = true
            sourceSymbolsHeld += 1
            symbolsRecovered += 1
        }
        blockHave[sbn] = k
        return true
    }

    /// MD5 of the complete object, read back from the store a chunk at a time (never whole).
    mutating func digest(chunkBytes: Int = 1 << 20) -> Result<[UInt8], SymbolStoreError> {
        var md5 = MD5()
        var offset = 0
        let length = Int(info.transferLength)
        do {
            while offset < length {
                let count = min(chunkBytes, length - offset)
                md5.update(try store.read(at: offset, count: count))
                offset += count
            }
        } catch {
            storeError = error
            return .failure(error)
        }
        return .success(md5.finalize())
    }

    /// The complete object (bytes, or its spool file cut to Transfer-Length and fsynced).
    mutating func seal(md5: [UInt8]) -> Result<ObjectContent, SymbolStoreError> {
        do { return .success(try store.seal(length: Int(info.transferLength), md5: md5)) } catch {
            storeError = error
            return .failure(error)
        }
    }

    /// The object's bytes once complete (memory objects; FDT instances).
    mutating func takeBytes() -> [UInt8] {
        guard case .success(.bytes(let bytes)) = seal(md5: []) else { return [] }
        return bytes
    }
}

/// A source block of a spooled object held in memory while it is received (RFC 5052 §9.1): its
/// source symbols at their place (zero-padded to whole symbols) and its repair symbols by ESI.
struct HeldBlock: Sendable {
    var source: [UInt8] = []
    var repairs: [Int: [UInt8]] = [:]
    var lastUse = 0

    /// A zeroed block; takes `spare`'s storage when it has the size.
    init(sourceBytes: Int, reusing spare: inout [UInt8]) {
        if spare.count == sourceBytes {
            swap(&source, &spare)
            source.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        } else {
            source = [UInt8](repeating: 0, count: sourceBytes)
        }
    }

    var bytes: Int { source.count + repairs.values.reduce(0) { $0 + $1.count } }

    mutating func put(_ symbol: ArraySlice<UInt8>, esi: Int, sourceSymbols: Int, symbolLength: Int) {
        guard esi < sourceSymbols else {
            repairs[esi] = Array(symbol)
            return
        }
        let start = esi * symbolLength
        source.withUnsafeMutableBytes { target in
            symbol.withUnsafeBytes { from in
                guard let base = target.baseAddress, let bytes = from.baseAddress else { return }
                (base + start).copyMemory(from: bytes, byteCount: min(from.count, target.count - start))
            }
        }
    }

    func symbol(esi: Int, sourceSymbols: Int, symbolLength: Int) -> [UInt8] {
        guard esi < sourceSymbols else { return repairs[esi] ?? [UInt8](repeating: 0, count: symbolLength) }
        return Array(source[(esi * symbolLength)..<((esi + 1) * symbolLength)])
    }
}
