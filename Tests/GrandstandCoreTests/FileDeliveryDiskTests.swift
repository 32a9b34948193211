import Synchronization
import Testing
import TestSupport
@testable import GrandstandCore

/// A spool-file stand-in: symbols by offset in memory, a byte budget after which the first
/// store's writes fail with ENOSPC (later stores have room), and the sealed object for checks.
final class FakeSpool: SymbolStore, SymbolStoreProvider {
    struct State { var bytes: [Int: [UInt8]] = [:]; var written = 0; var writes = 0; var reads = 0; var sealed: [UInt8]?; var stores = 0 }
    let state = Mutex(State())
    /// Bytes writable before ENOSPC (across every store it made).
    let budget: Int
    /// Free space `makeStore` reports.
    let free: Int

    init(budget: Int = .max, free: Int = .max) {
        self.budget = budget
        self.free = free
    }

    var memoryBytes: Int { 0 }
    var sealed: [UInt8]? { state.withLock { $0.sealed } }
    var storesMade: Int { state.withLock { $0.stores } }
    /// Write and read calls so far (the digest's and the seal's reads included).
    var calls: (writes: Int, reads: Int) { state.withLock { ($0.writes, $0.reads) } }

    func makeStore(transferLength: Int) throws(SymbolStoreError) -> any SymbolStore {
        guard transferLength <= free else { throw SymbolStoreError(operation: "reserve", path: "fake", errno: SymbolStoreError.noSpace) }
        state.withLock { $0.stores += 1; $0.bytes = [:] }
        return self
    }

    func write(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(SymbolStoreError) {
        let full = state.withLock { state -> Bool in
            guard state.stores > 1 || state.written + bytes.count <= budget else { return true }
            state.written += bytes.count
            state.writes += 1
            state.bytes[offset] = Array(bytes)
            return false
        }
        if full { throw SymbolStoreError(operation: "pwrite", path: "fake", errno: SymbolStoreError.noSpace) }
    }

    func read(at offset: Int, count: Int) throws(SymbolStoreError) -> [UInt8] {
        state.withLock { state in
            state.reads += 1
            var out = [UInt8](repeating: 0, count: count)
            for (start, bytes) in state.bytes where start < offset + count && start + bytes.count > offset {
                for (i, byte) in bytes.enumerated() where start + i >= offset && start + i < offset + count { out[start + i - offset] = byte }
            }
            return out
        }
    }

    func discard(_ offsets: [Int]) { state.withLock { state in for offset in offsets { state.bytes[offset] = nil } } }

    func seal(length: Int, md5: [UInt8]) throws(SymbolStoreError) -> ObjectContent {
        let bytes = try read(at: 0, count: length)
        state.withLock { $0.sealed = bytes }
        return .file(SpooledObject(path: "fake", size: length, md5: md5, owner: self))
    }
}

@Suite("FileDelivery on disk")
struct FileDeliveryDiskTests {
    static let file = FluteFile(path: "update/bundle.raucb", bytes: FluteTesting.bytes(300_001, seed: 5), contentType: "application/octet-stream")

    static func packets(rounds: Int, repair: Int = 4) throws -> [ScheduledDatagram] {
        var source = try FluteTesting.carousel([file], options: .init(symbolLength: 1000, maxBlockLength: 20, repairSymbols: repair, rounds: rounds))
        return FluteTesting.drain(&source)
    }

    static let disk = FluteReceiverConfiguration(diskThresholdBytes: 100_000)

    /// Memory for held blocks: the default (every block of the object fits), one block (the
    /// least recently used is written out as another opens: both paths in one object), none.
    static let blockBuffers = [FluteReceiverConfiguration().diskBlockBufferBytes, 24 * 1000, 0]

    /// Four seeds on the host, two under qemu-user (the pure-Swift reference field is slow emulated).
    @Test(arguments: TestEnvironment.isQEMUUser ? [UInt64(1), 2] : [1, 2, 3, 4], blockBuffers)
    func shuffledLossyDuplicatedSymbolsAcrossRoundsAssembleOnDisk(_ seed: UInt64, blockBufferBytes: Int) throws {
        var rng = SplitMix(seed: seed)
        let all = try Self.packets(rounds: 2)
        let fdt = all.filter { (try? LCTHeader.parse($0.payload[...]).get().header.toi) == 0 }
        let half = all.count / 2
        // Round one: 25 % loss (beyond 4 repairs per 20 for some blocks), shuffled, with duplicates; round two: 5 % loss.
        var first = all[..<half].filter { _ in rng.next() % 4 != 0 }
        first += first.filter { _ in rng.next() % 8 == 0 }
        first.shuffle(using: &rng)
        let second = all[half...].filter { _ in rng.next() % 20 != 0 }
        let spool = FakeSpool()
        var configuration = Self.disk
        configuration.diskBlockBufferBytes = blockBufferBytes
        var receiver = FluteReceiver(configuration: configuration, math: RFC5510Reference(), stores: spool)
        let objects = FluteTesting.completed(FluteTesting.feed(&receiver, fdt + first + Array(second)))
        #expect(objects.count == 1)
        let object = try #require(objects.first)
        #expect(object.bytes.isEmpty && object.size == Self.file.bytes.count)
        #expect(object.spool?.md5 == MD5.digest(Self.file.bytes))
        #expect(spool.sealed == Self.file.bytes)
        #expect(receiver.stats.symbolsRecovered > 0)
        #expect(receiver.stats.objectsCompleted == 1 && receiver.stats.objectsFailed == 0)
    }

    /// 301 symbols in 16 blocks of 19 or 18 (RFC 5052 §9.1): held whole, each block is one write
    /// and decoding reads nothing back (the only reads are the digest's); unheld, a write a symbol.
    @Test func heldBlocksReachTheSpoolInOneWriteEach() throws {
        // Every 25th file packet lost (4 %): at most one a block, so some blocks decode and all complete.
        let packets = try Self.packets(rounds: 1).enumerated().filter { $0.offset == 0 || $0.offset % 25 != 0 }.map(\.element)
        let sourceSymbols = (Self.file.bytes.count + 999) / 1000
        // Unheld: no block buffer, or no memory left under maxBufferedBytes for one (the object
        // still goes to disk).
        let cases = [(FluteReceiverConfiguration().diskBlockBufferBytes, Self.disk.maxBufferedBytes, 16),
                     (0, Self.disk.maxBufferedBytes, sourceSymbols), (FluteReceiverConfiguration().diskBlockBufferBytes, 3_000, sourceSymbols)]
        for (budget, memory, writes) in cases {
            let spool = FakeSpool()
            var configuration = Self.disk
            configuration.diskBlockBufferBytes = budget
            configuration.maxBufferedBytes = memory
            var receiver = FluteReceiver(configuration: configuration, math: RFC5510Reference(), stores: spool)
            let objects = FluteTesting.completed(FluteTesting.feed(&receiver, packets))
            #expect(objects.count == 1 && spool.sealed == Self.file.bytes)
            #expect(receiver.stats.symbolsRecovered > 0)
            // Unheld: every received source and repair symbol, then each rebuilt source, is a write.
            if writes == sourceSymbols {
                #expect(spool.calls.writes >= writes, "budget \(budget), memory \(memory)")
            } else {
                #expect(spool.calls.writes == writes, "budget \(budget)")
                #expect(spool.calls.reads <= 2, "budget \(budget): \(spool.calls.reads) reads")
            }
        }
    }

    @Test func memoryIsTheBookkeepingAndTheHeldBlocks() throws {
        let packets = try Self.packets(rounds: 1)
        let part = Array(packets.prefix(packets.count / 2 + 3))   // ends inside a block
        var unheld = Self.disk
        unheld.diskBlockBufferBytes = 0
        var bookkeeping = FluteReceiver(configuration: unheld, math: RFC5510Reference(), stores: FakeSpool())
        _ = FluteTesting.feed(&bookkeeping, part)
        // 300 kB object: the assembly holds a bit per symbol and a few words per block.
        #expect(bookkeeping.bufferedBytes < 2_000)
        #expect(bookkeeping.table.first?.progress ?? 0 > 0)
        var held = FluteReceiver(configuration: Self.disk, math: RFC5510Reference(), stores: FakeSpool())
        _ = FluteTesting.feed(&held, part)
        // In order, one block is open: its 18 or 19 sources of 1000 bytes (and any repairs) on top.
        #expect(held.bufferedBytes >= 18_000 && held.bufferedBytes < 2_000 + 23_000, "\(held.bufferedBytes)")
    }

    @Test func aStoreWriteFailureFailsTheObjectCleanlyAndTheNextRoundCompletes() throws {
        let packets = try Self.packets(rounds: 2)
        let full = FakeSpool(budget: 50_000)
        var receiver = FluteReceiver(configuration: Self.disk, math: RFC5510Reference(), stores: full)
        let events = FluteTesting.feed(&receiver, packets)
        let failures = events.compactMap { if case .failed(_, _, _, let reason) = $0 { return reason } else { return nil } }
        #expect(failures == ["store_failed"])
        #expect(receiver.stats.objectsFailed == 1)
        #expect(receiver.stats.drops[.storeFailed] == 1)
        // The second store (the rest of round one, then round two) has room: it completes.
        let objects = FluteTesting.completed(events)
        #expect(objects.count == 1 && full.sealed == Self.file.bytes)
        #expect(full.storesMade == 2)
        #expect(receiver.table.first?.state == .complete)
    }

    @Test func anObjectThatDoesNotFitTheDiskIsDroppedAndCounted() throws {
        let packets = try Self.packets(rounds: 1)
        let spool = FakeSpool(free: 100_000)
        var receiver = FluteReceiver(configuration: Self.disk, math: RFC5510Reference(), stores: spool)
        let events = FluteTesting.feed(&receiver, packets)
        #expect(FluteTesting.completed(events).isEmpty)
        #expect((receiver.stats.drops[.noDiskSpace] ?? 0) == packets.count - 1)
        #expect(spool.storesMade == 0)
        #expect(receiver.table.first?.failure == "no_disk_space")
    }

    @Test func limitsFollowWhereTheObjectGoes() throws {
        let packets = try Self.packets(rounds: 1)
        // In memory the 300 kB object is too large; on disk it fits.
        var memory = FluteReceiver(configuration: FluteReceiverConfiguration(maxObjectBytes: 100_000), math: RFC5510Reference())
        _ = FluteTesting.feed(&memory, packets)
        #expect(memory.stats.objectsCompleted == 0 && (memory.stats.drops[.objectTooLarge] ?? 0) > 0)
        let diskOnly = FluteReceiverConfiguration(maxObjectBytes: 100_000, diskOnly: true)
        var disk = FluteReceiver(configuration: diskOnly, math: RFC5510Reference(), stores: FakeSpool())
        #expect(FluteTesting.completed(FluteTesting.feed(&disk, packets)).first?.spool != nil)
        var capped = FluteReceiver(configuration: FluteReceiverConfiguration(maxDiskObjectBytes: 200_000, diskOnly: true),
                                   math: RFC5510Reference(), stores: FakeSpool())
        _ = FluteTesting.feed(&capped, packets)
        #expect((capped.stats.drops[.objectTooLarge] ?? 0) > 0)
    }

    @Test(arguments: [1, 7, 63, 64, 65, 1000, 4096])
    func md5IsTheSameFedInChunks(_ chunk: Int) {
        let bytes = FluteTesting.bytes(10_007, seed: UInt64(chunk))
        var md5 = MD5()
        var index = 0
        while index < bytes.count {
            md5.update(bytes[index..<min(bytes.count, index + chunk)])
            index += chunk
        }
        let whole = MD5.digest(bytes)
        #expect(md5.finalize() == whole)
    }

    @Test func md5KnownAnswers() {
        // RFC 1321 §A.5.
        #expect(Base64.encode(MD5.digest(Array("".utf8))) == "1B2M2Y8AsgTpgAmY7PhCfg==")
        let digits = Array(String(repeating: "1234567890", count: 8).utf8)
        let expected: [UInt8] = [0x57, 0xed, 0xf4, 0xa2, 0x2b, 0xe3, 0xc9, 0x55, 0xac, 0x49, 0xda, 0x2e, 0x21, 0x07, 0xb6, 0x7a]
        let digest = MD5.digest(digits)
        #expect(digest == expected)
    }
}
