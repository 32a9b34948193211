import Testing
import TestSupport
@testable import GrandstandCore

@Suite("FileDelivery assembly")
struct FileDeliveryAssemblyTests {
    static let files = [
        FluteFile(path: "ccast-timeline.xml", bytes: Array("<timeline><clip src=\"media/a.mp4\"/></timeline>".utf8), contentType: "text/xml"),
        FluteFile(path: "media/a.mp4", bytes: FluteTesting.bytes(20_000, seed: 1), contentType: "video/mp4"),
        FluteFile(path: "media/b.bin", bytes: FluteTesting.bytes(5_003, seed: 2)),
    ]

    static func byPath(_ objects: [FluteObject]) -> [String: [UInt8]] {
        Dictionary(objects.map { ($0.contentLocation, $0.bytes) }, uniquingKeysWith: { a, _ in a })
    }

    static func deliversEveryFile(_ objects: [FluteObject]) -> Bool {
        byPath(objects) == Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.bytes) })
    }

    @Test func oneCleanRoundDeliversEveryFile() throws {
        var source = try FluteTesting.carousel(Self.files, options: .init(symbolLength: 500, maxBlockLength: 8, rounds: 1))
        var receiver = FluteReceiver()
        let events = FluteTesting.feed(&receiver, FluteTesting.drain(&source))
        let objects = FluteTesting.completed(events)
        #expect(objects.count == 3)
        #expect(Self.deliversEveryFile(objects), "\(objects.map(\.contentLocation))")
        #expect(objects.first { $0.contentLocation == "media/a.mp4" }?.contentType == "video/mp4")
        #expect(receiver.stats.objectsCompleted == 3)
        #expect(receiver.stats.malformed == 0)
        #expect(receiver.table.allSatisfy { $0.state == .complete && $0.progress == 1 })
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func randomLossReorderAndDuplicatesWithinRSCapacityCompleteByteExact(_ seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        // k ≤ 10 per block, 4 repairs: drop at most 4 symbols of each block.
        var source = try FluteTesting.carousel(Self.files, options: .init(symbolLength: 256, maxBlockLength: 10, repairSymbols: 4, rounds: 1))
        let packets = FluteTesting.drain(&source)
        // Packets per (TOI, block); a block of k sources has n − k repairs (n = ⌊k · 14 / 10⌋), its capacity.
        var byBlock: [String: (repairs: Int, indices: [Int])] = [:]
        for (index, datagram) in packets.enumerated() {
            let packet = try ALCPacket.parse(datagram.payload[...], encodingID: 5).get()
            guard packet.header.toi != 0 else { continue }   // the FDT copies are not dropped
            let file = Self.files[Int(packet.header.toi) - 1]
            let blocks = try #require(FECObjectInfo(encodingID: 5, transferLength: UInt64(file.bytes.count), symbolLength: 256,
                                                    maxSourceBlockLength: 10, maxEncodingSymbols: 14).blocks)
            let block = blocks[Int(packet.sourceBlockNumber)]
            byBlock["\(packet.header.toi)/\(packet.sourceBlockNumber)", default: (block.encodingSymbols - block.sourceSymbols, [])].indices.append(index)
        }
        var dropped = Set<Int>()
        for (_, block) in byBlock {
            let count = min(block.repairs, Int(rng.next() % 5))
            for index in block.indices.shuffled(using: &rng).prefix(count) { dropped.insert(index) }
        }
        var kept = packets.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        kept += kept.filter { _ in rng.next() % 10 == 0 }   // duplicates
        kept.shuffle(using: &rng)
        // The FDT must come first for a receiver to know the TOIs: deliver one copy up front.
        let fdt = packets.filter { (try? LCTHeader.parse($0.payload[...]).get().header.toi) == 0 }
        var receiver = FluteReceiver(math: RFC5510Reference())
        let objects = FluteTesting.completed(FluteTesting.feed(&receiver, fdt + kept))
        let exact = Self.byPath(objects) == Dictionary(uniqueKeysWithValues: Self.files.map { ($0.path, $0.bytes) })
        #expect(exact, "delivered \(objects.map(\.contentLocation)) with \(dropped.count) of \(packets.count) dropped")
        #expect(objects.count == 3)
        #expect(receiver.stats.malformed == 0)
        #expect(receiver.stats.symbolsRecovered > 0)
    }

    @Test func lossBeyondNoCodeCompletesInLaterRounds() throws {
        var rng = SplitMix(seed: 11)
        var source = try FluteTesting.carousel(Self.files, options: .init(symbolLength: 400, maxBlockLength: 16, rounds: 6))
        let packets = FluteTesting.drain(&source).filter { _ in rng.next() % 4 != 0 }   // 25 % loss, every round
        var receiver = FluteReceiver()
        let objects = FluteTesting.completed(FluteTesting.feed(&receiver, packets))
        #expect(Self.deliversEveryFile(objects), "\(objects.map(\.contentLocation))")
        #expect(objects.count == 3)   // each delivered once, though the carousel repeats
        #expect((receiver.stats.drops[.objectAlreadyComplete] ?? 0) > 0)
        #expect((receiver.stats.drops[.duplicateSymbol] ?? 0) > 0)
    }

    @Test func receiverJoiningMidCarouselCompletesInTheNextRound() throws {
        var source = try FluteTesting.carousel(Self.files, options: .init(symbolLength: 500, maxBlockLength: 8, rounds: 2))
        let packets = FluteTesting.drain(&source)
        let perRound = packets.count / 2
        let joinAt = perRound / 2 + 3   // in the middle of the big file
        var receiver = FluteReceiver()
        let firstRound = FluteTesting.completed(FluteTesting.feed(&receiver, Array(packets[joinAt..<perRound])))
        #expect(firstRound.count < 3)
        let secondRound = FluteTesting.completed(FluteTesting.feed(&receiver, Array(packets[perRound...])))
        let all = firstRound + secondRound
        #expect(Self.deliversEveryFile(all), "\(all.map(\.contentLocation))")
        #expect(all.count == 3)
    }

    @Test func aChangedFileArrivesAsANewInstanceAndReplacesTheOld() throws {
        final class Box: @unchecked Sendable { var files: [FluteFile] = FileDeliveryAssemblyTests.files }
        let box = Box()
        var source = try FluteTesting.carousel(Self.files, options: .init(symbolLength: 500, maxBlockLength: 8, rounds: 3),
                                               reload: { box.files })
        var receiver = FluteReceiver()
        var objects: [FluteObject] = []
        var instances: [UInt32] = []
        // Round 1 as is; before round 2 the timeline changes.
        var round1: [ScheduledDatagram] = []
        while source.round < 1 { round1 += source.pop() }
        for event in FluteTesting.feed(&receiver, round1) {
            if case .completed(let object) = event { objects.append(object) }
            if case .fdtInstance(_, let id, _) = event { instances.append(id) }
        }
        let changed = Array("<timeline><clip src=\"media/b.bin\"/></timeline>".utf8)
        box.files[0].bytes = changed
        for event in FluteTesting.feed(&receiver, FluteTesting.drain(&source)) {
            if case .completed(let object) = event { objects.append(object) }
            if case .fdtInstance(_, let id, _) = event { instances.append(id) }
        }
        #expect(instances == [0, 1])
        let timelines = objects.filter { $0.contentLocation == "ccast-timeline.xml" }
        #expect(timelines.map { String(decoding: $0.bytes, as: UTF8.self) } == [String(decoding: Self.files[0].bytes, as: UTF8.self), String(decoding: changed, as: UTF8.self)])
        #expect(timelines.map(\.fdtInstance) == [0, 1])
        #expect(timelines[0].toi != timelines[1].toi)
        #expect(objects.count == 4)   // unchanged files are not delivered again
        let rows = receiver.table.filter { $0.contentLocation == "ccast-timeline.xml" }
        #expect(rows.count == 1 && rows.first?.toi == timelines[1].toi)
    }

    @Test func md5MismatchIsCountedNotDelivered() throws {
        var source = try FluteTesting.carousel([Self.files[0]], options: .init(symbolLength: 16, maxBlockLength: 8, rounds: 1))
        var packets = FluteTesting.drain(&source)
        // Corrupt the last byte of one file symbol (not an FDT packet).
        let index = try #require(packets.firstIndex { (try? LCTHeader.parse($0.payload[...]).get().header.toi) == 1 })
        packets[index].payload[packets[index].payload.count - 1] ^= 0xFF
        var receiver = FluteReceiver()
        let events = FluteTesting.feed(&receiver, packets)
        #expect(FluteTesting.completed(events).isEmpty)
        #expect(events.contains(.failed(tsi: 1, toi: 1, contentLocation: "ccast-timeline.xml", reason: "md5_mismatch")))
        #expect(receiver.stats.md5Mismatches == 1 && receiver.stats.objectsFailed == 1)
        #expect(receiver.table.first?.state == .failed)
    }

    @Test func expiredInstancesAreRefusedAndForgotten() throws {
        var source = try FluteTesting.carousel(Self.files, options: .init(symbolLength: 500, maxBlockLength: 8, rounds: 1, fdtLifetimeSeconds: 10))
        let packets = FluteTesting.drain(&source)
        var late = FluteReceiver()
        for packet in packets { _ = late.receive(packet.payload[...], nowNanoseconds: FluteTesting.start + 3_600_000_000_000) }
        #expect(late.stats.drops[.fdtExpired] == 1 * 3)   // one FDT copy per file, each refused
        #expect(late.table.isEmpty)
        var receiver = FluteReceiver()
        let fdt = packets.prefix { (try? LCTHeader.parse($0.payload[...]).get().header.toi) == 0 }   // the first copy
        _ = FluteTesting.feed(&receiver, Array(fdt))
        #expect(receiver.table.count == 3)
        receiver.tick(nowNanoseconds: FluteTesting.start + 11_000_000_000)
        #expect(receiver.table.isEmpty)
    }

    @Test func unknownTSIAndTOIAreCounted() throws {
        var source = try FluteTesting.carousel([Self.files[0]], options: .init(tsi: 9, symbolLength: 500, rounds: 1))
        let packets = FluteTesting.drain(&source)
        var other = FluteReceiver(configuration: FluteReceiverConfiguration(tsi: 8))
        _ = FluteTesting.feed(&other, packets)
        #expect(other.stats.drops[.unknownTSI] == packets.count)
        var receiver = FluteReceiver()
        _ = FluteTesting.feed(&receiver, packets.filter { (try? LCTHeader.parse($0.payload[...]).get().header.toi) != 0 })
        #expect(receiver.stats.drops[.unknownTOI] == packets.count - 1)
    }

    @Test func limitsAreEnforced() throws {
        var source = try FluteTesting.carousel([Self.files[1]], options: .init(symbolLength: 500, rounds: 1))
        let packets = FluteTesting.drain(&source)
        var small = FluteReceiver(configuration: FluteReceiverConfiguration(maxObjectBytes: 10_000))
        _ = FluteTesting.feed(&small, packets)
        #expect((small.stats.drops[.objectTooLarge] ?? 0) == packets.count - 1)
        var tight = FluteReceiver(configuration: FluteReceiverConfiguration(maxBufferedBytes: 15_000))
        _ = FluteTesting.feed(&tight, packets)
        #expect((tight.stats.drops[.bufferFull] ?? 0) > 0)
        #expect(tight.stats.objectsCompleted == 0)
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix(seed: 99)
        var receiver = FluteReceiver(math: RFC5510Reference())
        for _ in 0..<5_000 {
            var bytes = (0..<Int(rng.next() % 80)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if !bytes.isEmpty { bytes[0] = 0x10 | (bytes[0] & 0x0F) }
            _ = receiver.receive(bytes[...], nowNanoseconds: FluteTesting.start)
        }
        #expect(receiver.stats.packets == 5_000)
    }

    /// Not a performance assertion: prints the receiver's rate (docs/files.md quotes it) and checks
    /// a 2 MiB object over two rounds with 10 % loss comes out whole.
    @Test func twoMegabytesOverTwoLossyRounds() throws {
        // 2 MiB; a quarter MiB under qemu-user (emulated, ~20× slower).
        let file = FluteFile(path: "big.bin", bytes: FluteTesting.bytes(TestEnvironment.isQEMUUser ? 256 << 10 : 2 << 20, seed: 21))
        var source = try FluteTesting.carousel([file], options: .init(symbolLength: 1400, maxBlockLength: 64, rounds: 2))
        let packets = FluteTesting.drain(&source).enumerated().filter { $0.offset % 10 != 7 }.map(\.element)
        var receiver = FluteReceiver()
        let clock = ContinuousClock()
        var objects: [FluteObject] = []
        let elapsed = clock.measure { objects = FluteTesting.completed(FluteTesting.feed(&receiver, packets)) }
        let whole = objects.first?.bytes == file.bytes
        #expect(objects.count == 1 && whole)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("FLUTE receiver: \(packets.count) packets (\(file.bytes.count * 2 / 1400) sent) in \(Int(seconds * 1000)) ms")
    }
}
