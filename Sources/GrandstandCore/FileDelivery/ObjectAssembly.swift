/// One transport object being rebuilt from its encoding symbols (RFC 6726, RFC 5052 §9.1): the
/// symbols go to a `SymbolStore` (source symbols at their place, zero-padded to whole symbols;
/// Reed-Solomon repairs in an area past them), the assembly keeps only which symbols each block
/// holds. Symbols may come in any order, across carousel rounds, and twice.
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

    /// Nil when the OTI gives no usable partitioning. `store` nil: memory.
    init?(info: FECObjectInfo, store: (any SymbolStore)? = nil) {
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
    }

    /// Bytes of memory this assembly holds (for the receiver's memory budget).
    var bufferedBytes: Int { store.memoryBytes + (spooled ? have.count + 3 * 8 * blocks.count : 0) }

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
                try store.write(symbol, at: offset(block: sbn, esi: esi))
                have[index] = true
                sourceSymbolsHeld += 1
                blockHave[sbn] += 1
            } else {
                guard math != nil else { return .failure(.unsupportedFEC) }
                if repairs[sbn]?.contains(esi) == true { return .success(.duplicate) }
                try store.write(symbol, at: offset(block: sbn, esi: esi))   // repairs are always E long
                repairs[sbn, default: []].insert(esi)
            }
            let held = blockHave[sbn] + (repairs[sbn]?.count ?? 0)
            guard held >= block.sourceSymbols else { return .success(.stored) }
            if blockHave[sbn] < block.sourceSymbols {
                guard let math, try decode(sbn, math: math) else { return .success(.stored) }
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
        guard let held = repairs.removeValue(forKey: sbn) else { return }
        store.discard(held.map { offset(block: sbn, esi: $0) })
    }

    /// Rebuilds block `sbn`'s missing sources from any k held symbols, read back from the store
    /// (RFC 5510 §8); false if the code refuses (its repairs are then dropped and the block waits
    /// for the carousel's next round).
    private mutating func decode(_ sbn: Int, math: any ReedSolomonMath) throws(SymbolStoreError) -> Bool {
        let block = blocks[sbn]
        let k = block.sourceSymbols, e = info.symbolLength
        var received: [Int: [UInt8]] = [:]
        for j in 0..<k where have[block.firstSymbol + j] { received[j] = try store.read(at: offset(block: sbn, esi: j), count: e) }
        for esi in (repairs[sbn] ?? []).sorted() where received.count < k {
            received[esi] = try store.read(at: offset(block: sbn, esi: esi), count: e)
        }
        guard let rebuilt = try? math.reconstruct(sourceCount: k, repairCount: block.encodingSymbols - k, symbolLength: e, received: received),
              (0..<k).allSatisfy({ have[block.firstSymbol + $0] || rebuilt[$0]?.count == e }) else {
            decodeFailures += 1
            dropRepairs(sbn)
            return false
        }
        for j in 0..<k where !have[block.firstSymbol + j] {
            guard let bytes = rebuilt[j] else { continue }
            try store.write(bytes[...], at: offset(block: sbn, esi: j))
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
