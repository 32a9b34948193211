import Testing
@testable import GrandstandCore

/// Content-Encoding (RFC 6726 §3.4.2), zero-byte files and the announced TSI.
@Suite struct FileDeliveryCodingTests {
    static let gzipOptions = FluteCarouselSource.Options(symbolLength: 200, maxBlockLength: 8, intervalNanoseconds: 1_000_000, rounds: 1,
                                                         contentEncoding: "gzip")

    /// Python's gzip module wrote files/fixture.txt.gz (with FNAME set); we decode it, and our own
    /// gzip decodes back to its input.
    @Test func gzipFromAnotherImplementationAndOurs() throws {
        let plain = try CoreFixtures.bytes("files/fixture.txt")
        let gz = try CoreFixtures.bytes("files/fixture.txt.gz")
        #expect(gz[3] & 0x08 != 0, "the fixture carries a file name")
        #expect(try ContentCoding.decode(gz, encoding: "gzip", limit: 1 << 20).get() == plain)
        #expect(try ContentCoding.decode(gz, encoding: " X-GZIP ", limit: 1 << 20).get() == plain)
        let ours = ContentCoding.gzip(plain)
        #expect(ours.count < plain.count / 2, "repetitive text compresses")
        #expect(try ContentCoding.decode(ours, encoding: "gzip", limit: 1 << 20).get() == plain)
        #expect(try ContentCoding.decode(ContentCoding.gzip([]), encoding: "gzip", limit: 10).get() == [])
        #expect(ContentCoding.decode(ours, encoding: "gzip", limit: 100) == .failure(.tooLarge))
        #expect(ContentCoding.decode(ours, encoding: "br", limit: 1 << 20) == .failure(.unsupported("br")))
        #expect(ContentCoding.crc32(Array("123456789".utf8)) == 0xCBF4_3926)   // the CRC-32 check value
        var corrupt = ours
        corrupt[corrupt.count - 6] ^= 0xFF   // the CRC-32 trailer
        #expect(ContentCoding.decode(corrupt, encoding: "gzip", limit: 1 << 20) == .failure(.corrupt))
        #expect(ContentCoding.decode(Array(ours.prefix(12)), encoding: "gzip", limit: 1 << 20) == .failure(.corrupt))
    }

    @Test func aGzipEncodedCarouselDeliversTheOriginalFiles() throws {
        let text = Array(String(repeating: "<event t=\"12.5\">goal</event>\n", count: 200).utf8)
        let binary = FluteTesting.bytes(3000, seed: 9)
        var source = try FluteTesting.carousel([FluteFile(path: "timeline.xml", bytes: text), FluteFile(path: "clip.bin", bytes: binary)],
                                               options: Self.gzipOptions)
        let fdt = source.fdt(expires: 4_000_000_000)
        #expect(fdt.files.allSatisfy { $0.contentEncoding == "gzip" })
        #expect(fdt.files.first { $0.contentLocation == "timeline.xml" }.map { $0.contentLength == UInt64(text.count) && $0.transferLength! < $0.contentLength! } == true)
        #expect(fdt.files.first { $0.contentLocation == "timeline.xml" }?.md5 == MD5.digest(text), "Content-MD5 is of the file before encoding")
        let packets = FluteTesting.drain(&source)
        var receiver = FluteReceiver()
        let objects = FluteTesting.completed(FluteTesting.feed(&receiver, packets))
        #expect(Dictionary(uniqueKeysWithValues: objects.map { ($0.contentLocation, $0.bytes) }) == ["timeline.xml": text, "clip.bin": binary])
        #expect(receiver.stats.objectsFailed == 0)
    }

    @Test func aCorruptGzipObjectIsACountedFailureAndNothingIsDelivered() throws {
        let text = Array(String(repeating: "menu item\n", count: 100).utf8)
        var source = try FluteTesting.carousel([FluteFile(path: "menu.txt", bytes: text)], options: Self.gzipOptions)
        var packets = FluteTesting.drain(&source)
        // Flip a byte of the file's last data packet (TOI 1): the gzip trailer no longer matches.
        let last = try #require(packets.lastIndex { (try? LCTHeader.parse($0.payload[...]).get())?.header.toi == 1 })
        packets[last].payload[packets[last].payload.count - 1] ^= 0x5A
        var receiver = FluteReceiver()
        let events = FluteTesting.feed(&receiver, packets)
        #expect(FluteTesting.completed(events).isEmpty)
        #expect(events.contains(.failed(tsi: 1, toi: 1, contentLocation: "menu.txt", reason: "content_decoding_failed")))
        #expect(receiver.stats.objectsFailed == 1)
        #expect(receiver.stats.contentDecodingFailures == 1)
        #expect(receiver.stats.fields.contains { $0.name == "content_decoding_failures" && $0.value == 1 })
        #expect(receiver.table.first?.state == .failed)
    }

    @Test func aWrongContentLengthAfterDecodingFails() throws {
        let gz = ContentCoding.gzip(Array("twelve bytes".utf8))
        let file = FDTInstance.File(toi: 7, contentLocation: "a.txt", contentLength: 13, transferLength: UInt64(gz.count),
                                    contentEncoding: "gzip", fecEncodingID: 0, maxSourceBlockLength: 8, symbolLength: 64)
        let events = Self.deliver(file, transport: gz)
        #expect(events.contains(.failed(tsi: 1, toi: 7, contentLocation: "a.txt", reason: "content_length_mismatch")))
    }

    @Test func aDigestOfTheTransportObjectIsAcceptedToo() throws {
        let plain = Array("digest over the gzip stream".utf8), gz = ContentCoding.gzip(plain)
        let file = FDTInstance.File(toi: 7, contentLocation: "b.txt", contentLength: UInt64(plain.count), transferLength: UInt64(gz.count),
                                    contentEncoding: "gzip", md5: MD5.digest(gz), fecEncodingID: 0, maxSourceBlockLength: 8, symbolLength: 64)
        #expect(FluteTesting.completed(Self.deliver(file, transport: gz)).map(\.bytes) == [plain])
        var wrong = file
        wrong.md5 = MD5.digest(Array("something else".utf8))
        #expect(Self.deliver(wrong, transport: gz).contains(.failed(tsi: 1, toi: 7, contentLocation: "b.txt", reason: "md5_mismatch")))
    }

    /// An FDT instance with `file` and the file's packets (Compact No-Code, TSI 1).
    static func deliver(_ file: FDTInstance.File, transport: [UInt8]) -> [FluteEvent] {
        var receiver = FluteReceiver()
        let fdt = FDTInstance(expires: 4_000_000_000, complete: false, files: [file]).xml()
        let fdtInfo = FECObjectInfo(encodingID: 0, transferLength: UInt64(fdt.count), symbolLength: 1400, maxSourceBlockLength: 64)
        var packets: [[UInt8]] = []
        let fdtHeader = LCTHeader(tsi: 1, toi: 0, extensions: [.fdt(version: 2, instanceID: 1), fdtInfo.ftiExtension])
        for (i, start) in stride(from: 0, to: fdt.count, by: 1400).enumerated() {
            packets.append(ALCPacket(header: fdtHeader, sourceBlockNumber: 0, encodingSymbolID: UInt32(i),
                                     symbol: fdt[start..<min(fdt.count, start + 1400)]).encode(encodingID: 0))
        }
        let header = LCTHeader(tsi: 1, toi: file.toi, extensions: [])
        for (i, start) in stride(from: 0, to: transport.count, by: 64).enumerated() {
            packets.append(ALCPacket(header: header, sourceBlockNumber: UInt32(i / 8), encodingSymbolID: UInt32(i % 8),
                                     symbol: transport[start..<min(transport.count, start + 64)]).encode(encodingID: 0))
        }
        var events: [FluteEvent] = []
        for packet in packets { events += receiver.receive(packet[...], nowNanoseconds: FluteTesting.start) }
        return events
    }

    /// FEC Encoding ID 5 is MDS: any k of the n rows of RFC 5510's generator are invertible, so
    /// any k symbols of a block rebuild it (random subsets, and the worst case n = 255).
    @Test(arguments: [(1, 1), (5, 3), (20, 40), (64, 191)])
    func anyKRowsOfTheRFC5510GeneratorAreInvertible(_ k: Int, _ m: Int) throws {
        let g = try #require(RFC5510Generator.matrix(sourceCount: k, repairCount: m))
        var identity = [UInt8](repeating: 0, count: k * k)
        for i in 0..<k { identity[i * k + i] = 1 }
        #expect(Array(g[0..<(k * k)]) == identity, "identity on top")
        var rng = SplitMix(seed: UInt64(k * 1000 + m))
        for _ in 0..<(k > 32 ? 6 : 40) {
            var rows = Array(0..<(k + m))
            rows.shuffle(using: &rng)
            var sub: [UInt8] = []
            for row in rows.prefix(k).sorted() { sub += g[(row * k)..<((row + 1) * k)] }
            #expect(RFC5510Generator.invert(sub, size: k) != nil, "rows \(rows.prefix(k).sorted())")
        }
    }

    @Test func zeroByteFilesCompleteFromTheFDTAlone() throws {
        let body = FluteTesting.bytes(500, seed: 4)
        var source = try FluteTesting.carousel([FluteFile(path: "empty.txt", bytes: []), FluteFile(path: "b.bin", bytes: body)],
                                               options: .init(symbolLength: 100, maxBlockLength: 8, intervalNanoseconds: 1_000_000, rounds: 2))
        let packets = FluteTesting.drain(&source)
        var receiver = FluteReceiver()
        // The empty file completes while only FDT packets (TOI 0) have arrived.
        var events: [FluteEvent] = []
        var fed = 0
        while fed < packets.count, !FluteTesting.completed(events).contains(where: { $0.contentLocation == "empty.txt" }) {
            #expect((try? LCTHeader.parse(packets[fed].payload[...]).get())?.header.toi == 0, "packet \(fed) before completion")
            events += receiver.receive(packets[fed].payload[...], nowNanoseconds: packets[fed].dueNanoseconds)
            fed += 1
        }
        #expect(FluteTesting.completed(events).map(\.contentLocation) == ["empty.txt"])
        #expect(FluteTesting.completed(events).first?.bytes == [])
        let rest = FluteTesting.feed(&receiver, Array(packets.dropFirst(fed)))
        #expect(FluteTesting.completed(rest).map(\.contentLocation) == ["b.bin"], "the empty file completes once, not every round")
        #expect(receiver.table.allSatisfy { $0.state == .complete })
        #expect(receiver.table.first { $0.contentLocation == "empty.txt" }?.size == 0)
    }

    @Test func aZeroByteFileWithAWrongDigestFails() throws {
        let file = FDTInstance.File(toi: 3, contentLocation: "z", contentLength: 0, transferLength: 0, md5: MD5.digest([1]),
                                    fecEncodingID: 0, maxSourceBlockLength: 8, symbolLength: 64)
        #expect(Self.deliver(file, transport: []).contains(.failed(tsi: 1, toi: 3, contentLocation: "z", reason: "md5_mismatch")))
    }

    @Test(arguments: [("7", UInt64(7)), (" 281474976710655 ", UInt64(281_474_976_710_655))])
    func fluteTSIValues(_ text: String, _ tsi: UInt64) {
        #expect(FluteTSIAttribute.parse(text) == tsi)
    }

    @Test(arguments: ["", "x", "-1", "281474976710656", "1.5", "0x10", "1234567890123456"])
    func malformedFluteTSIValues(_ text: String) {
        #expect(FluteTSIAttribute.parse(text) == nil)
    }

    @Test func theAnnouncedTSILandsInTheChannel() throws {
        var registry = ChannelRegistry(policy: RegistryPolicy(license: Announce.box))
        let media = ["m=application 5200 FLUTE/UDP 0", "a=x-grandstand-kind:file", "a=flute-tsi:42"]
        _ = registry.feed(Announce.sdp(name: "Replays", media: media))
        let channel = try #require(registry.channels.first)
        #expect(channel.kind == .file)
        #expect(channel.fluteTSI == 42)
        #expect(channel.json["fluteTSI"] == .number(42))
        _ = registry.feed(Announce.sdp(name: "Bad TSI", session: 2, group: "239.255.20.2", media: [
            "m=application 5300 FLUTE/UDP 0", "a=x-grandstand-kind:file", "a=flute-tsi:big"]))
        let bad = try #require(registry.channels.first { $0.name == "Bad TSI" })
        #expect(bad.kind == .unsupported(reason: "malformed a=flute-tsi \"big\""))
        #expect(bad.fluteTSI == nil)
        _ = registry.feed(Announce.sdp(name: "Video", session: 3, group: "239.255.20.3"))
        let video = try #require(registry.channels.first { $0.name == "Video" })
        #expect(video.json["fluteTSI"] == nil, "only file channels carry the member")
    }

    @Test func aReceiverWithTheAnnouncedTSIIgnoresOtherSessions() throws {
        var other = try FluteTesting.carousel([FluteFile(path: "x", bytes: [1, 2, 3])],
                                              options: .init(tsi: 9, symbolLength: 100, maxBlockLength: 8, intervalNanoseconds: 1, rounds: 1))
        var receiver = FluteReceiver(configuration: FluteReceiverConfiguration(tsi: 42))
        #expect(FluteTesting.completed(FluteTesting.feed(&receiver, FluteTesting.drain(&other))).isEmpty)
        #expect(receiver.stats.fields.first { $0.name == "dropped_unknown_tsi" }?.value ?? 0 > 0)
    }
}
