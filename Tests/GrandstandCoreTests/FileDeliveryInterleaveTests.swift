import Testing
@testable import GrandstandCore

/// Interleaved source blocks (`FluteCarouselSource.Options.interleaveBlocks`): the carousel sends
/// a group of blocks round-robin, so a burst of lost packets is spread over the group and each
/// block keeps enough symbols for RFC 5510 to rebuild it from the one round.
struct FileDeliveryInterleaveTests {
    /// 12 blocks of 10 source symbols (128 bytes) and 4 Reed-Solomon repairs each.
    static let file = FluteFile(path: "bundle.raucb", bytes: FluteTesting.bytes(12 * 10 * 128, seed: 41))
    static let blocks = 12, perBlock = 14

    static func packets(interleave: Int) throws -> [ScheduledDatagram] {
        var source = try FluteTesting.carousel([file], options: .init(symbolLength: 128, maxBlockLength: 10, repairSymbols: 4,
                                                                      rounds: 1, interleaveBlocks: interleave))
        return FluteTesting.drain(&source)
    }

    /// (source block, encoding symbol id) of each packet of the file, in sending order.
    static func symbols(_ datagrams: [ScheduledDatagram]) throws -> [(block: Int, id: Int)] {
        try datagrams.compactMap { datagram in
            let packet = try ALCPacket.parse(datagram.payload[...], encodingID: FECObjectInfo.reedSolomonGF256).get()
            return packet.header.toi == 0 ? nil : (Int(packet.sourceBlockNumber), Int(packet.encodingSymbolID))
        }
    }

    @Test(arguments: [1, 3, 4, 5, 12, 16])
    func everySymbolIsSentOnceAndEachGroupRoundRobin(_ interleave: Int) throws {
        let sent = try Self.symbols(Self.packets(interleave: interleave))
        #expect(sent.count == Self.blocks * Self.perBlock)
        #expect(Set(sent.map { $0.block * 1000 + $0.id }).count == sent.count)
        // Group g holds blocks g·d ..< (g+1)·d; its packets are symbol 0 of each block, then 1, …
        var expected: [(block: Int, id: Int)] = []
        for first in stride(from: 0, to: Self.blocks, by: interleave) {
            let group = first..<min(first + interleave, Self.blocks)
            for id in 0..<Self.perBlock { for block in group { expected.append((block, id)) } }
        }
        #expect(sent.map(\.block) == expected.map(\.block) && sent.map(\.id) == expected.map(\.id))
    }

    /// A burst of 12 consecutive packets: sent in order it takes 12 of one block's 14 symbols
    /// (4 repairs cannot rebuild 8 missing sources) and the object is lost; interleaved over 4
    /// blocks it takes 3 of each, and every block is rebuilt.
    @Test(arguments: [(1, false), (2, false), (4, true), (12, true)])
    func aBurstIsRepairedOnlyWhenSpreadOverEnoughBlocks(_ interleave: Int, whole: Bool) throws {
        let datagrams = try Self.packets(interleave: interleave)
        let firstOfFile = try #require(datagrams.firstIndex {
            (try? LCTHeader.parse($0.payload[...]).get().header.toi) != 0
        })
        let burst = (firstOfFile + 28)..<(firstOfFile + 40)
        let kept = datagrams.indices.filter { !burst.contains($0) }.map { datagrams[$0] }
        var receiver = FluteReceiver(math: RFC5510Reference())
        let objects = FluteTesting.completed(FluteTesting.feed(&receiver, kept))
        #expect((objects.first?.bytes == Self.file.bytes) == whole, "interleave \(interleave): \(objects.count) objects")
        #expect(objects.count == (whole ? 1 : 0))
    }

    @Test(arguments: [0, 257])
    func anInterleaveOutsideOneTo256IsRefused(_ interleave: Int) {
        #expect(throws: StreamerError.self) { try Self.packets(interleave: interleave) }
    }
}
