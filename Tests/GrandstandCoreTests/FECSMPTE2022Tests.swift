import Testing
import TestSupport
@testable import GrandstandCore

/// One capture of a real SMPTE 2022-1 sender: media (port 5000) and FEC (5002 column, 5004 row).
struct FECCapture {
    var media: [(Int64, [UInt8])] = []
    /// Every packet in capture order: (time, port, bytes).
    var packets: [(Int64, UInt16, [UInt8])] = []
    var columnFEC: [[UInt8]] { packets.filter { $0.1 == 5002 }.map(\.2) }
    var rowFEC: [[UInt8]] { packets.filter { $0.1 == 5004 }.map(\.2) }

    init(_ name: String) throws {
        let capture = try CoreFixtures.pcapFrames("fec/\(name)")
        let link = try #require(LinkLayer(linkType: capture.linkType))
        for (time, frame) in capture.frames {
            guard case let .success(datagram) = FrameDecoder.decode(frame, link: link, timestampNanoseconds: time) else { continue }
            let port = datagram.destination.port
            guard [5000, 5002, 5004].contains(port) else { continue }
            packets.append((time, port, Array(datagram.payload)))
            if port == 5000 { media.append((time, Array(datagram.payload))) }
        }
    }

    /// Replays the capture into a decoder without the media packets at `drop` (indices into
    /// `media`) and the FEC packets at `dropFEC` (indices into `packets`), then finishes.
    func decode(drop: Set<Int> = [], dropFEC: Set<Int> = [], configuration: SMPTE2022Decoder.Configuration) -> (FECOutput, SMPTE2022Decoder) {
        var decoder = SMPTE2022Decoder(configuration: configuration)
        var output = FECOutput()
        var mediaIndex = 0
        var last: Int64 = 0
        for (index, (time, port, bytes)) in packets.enumerated() {
            last = time
            if port == 5000 {
                defer { mediaIndex += 1 }
                if drop.contains(mediaIndex) { continue }
                output.add(decoder.receiveMedia(bytes[...], nowNanoseconds: time))
            } else if !dropFEC.contains(index) {
                output.add(decoder.receiveFEC(bytes[...], nowNanoseconds: time))
            }
        }
        output.add(decoder.finish(nowNanoseconds: last + 1))
        return (output, decoder)
    }
}

/// A drop pattern on a fixture and what it must give per matrix.
struct MatrixLoss: Sendable, CustomTestStringConvertible {
    var drop: [Int]
    var results: [FECWindowResult]
    var unrecoverable: [Int] = []
    var testDescription: String { "drop \(drop) → \(results)" }
}

@Suite struct FECSMPTE2022FixtureTests {
    static let gstreamer = SMPTE2022Decoder.Configuration(limits: FECDecoderConfiguration(matrixWaitBoundNanoseconds: 5_000_000_000))
    static let ffmpeg = SMPTE2022Decoder.Configuration(limits: FECDecoderConfiguration(matrixWaitBoundNanoseconds: 5_000_000_000),
                                                       columns: 4, rows: 4)

    /// GStreamer rtpst2022-1-fecenc, L = 4, D = 3: matrices are media 0–11, 12–23, 24–35; the
    /// sequence numbers wrap (65530 → 5) inside the first.
    static let gstreamerLosses: [MatrixLoss] = [
        MatrixLoss(drop: [], results: [.noLoss, .noLoss, .noLoss]),
        MatrixLoss(drop: [5], results: [.recovered, .noLoss, .noLoss]),                  // across the wrap
        MatrixLoss(drop: [4, 5, 6, 7], results: [.recovered, .noLoss, .noLoss]),         // a whole row: columns
        MatrixLoss(drop: [13, 17, 21], results: [.noLoss, .recovered, .noLoss]),         // a whole column: rows
        MatrixLoss(drop: [12, 13, 16], results: [.noLoss, .recovered, .noLoss]),         // needs row → column → row
        MatrixLoss(drop: [13, 14, 17, 18], results: [.noLoss, .failed, .noLoss], unrecoverable: [13, 14, 17, 18]),
        MatrixLoss(drop: [3, 7, 11, 25, 26], results: [.recovered, .noLoss, .recovered]),
        MatrixLoss(drop: [24, 25, 26, 27, 28], results: [.noLoss, .noLoss, .recovered]), // burst over two rows
    ]

    @Test(arguments: gstreamerLosses)
    func gstreamerMatrices(loss: MatrixLoss) throws {
        let capture = try FECCapture("gstreamer-l4d3.pcap")
        try #require(capture.media.count == 36 && capture.columnFEC.count == 12 && capture.rowFEC.count == 9)
        let (output, decoder) = capture.decode(drop: Set(loss.drop), configuration: Self.gstreamer)
        check(output, decoder, capture: capture, loss: loss, repairCount: 7)
        #expect(decoder.geometry?.columns == 4 && decoder.geometry?.rows == 3)
    }

    /// FFmpeg prompeg, L = D = 4: matrices 0–15 and 16–31 (31–41 is unfinished); FFmpeg sends the
    /// second matrix's last column FEC only with a third matrix, so column 3 of it is unprotected.
    static let ffmpegLosses: [MatrixLoss] = [
        MatrixLoss(drop: [], results: [.noLoss, .noLoss]),
        MatrixLoss(drop: [6], results: [.recovered, .noLoss]),
        MatrixLoss(drop: [4, 5, 6, 7], results: [.recovered, .noLoss]),
        MatrixLoss(drop: [17, 21, 25, 29], results: [.noLoss, .recovered]),
        MatrixLoss(drop: [18, 19, 22, 23], results: [.noLoss, .failed], unrecoverable: [18, 19, 22, 23]),
        MatrixLoss(drop: [1, 2, 5], results: [.recovered, .noLoss]),
    ]

    @Test(arguments: ffmpegLosses)
    func ffmpegMatrices(loss: MatrixLoss) throws {
        let capture = try FECCapture("ffmpeg-l4d4.pcap")
        try #require(capture.media.count == 42 && capture.columnFEC.count == 7 && capture.rowFEC.count == 10)
        let (output, decoder) = capture.decode(drop: Set(loss.drop), configuration: Self.ffmpeg)
        check(output, decoder, capture: capture, loss: loss, repairCount: 8)
    }

    func check(_ output: FECOutput, _ decoder: SMPTE2022Decoder, capture: FECCapture, loss: MatrixLoss, repairCount: Int) {
        let expected = capture.media.enumerated().filter { !loss.unrecoverable.contains($0.offset) }.map(\.element.1)
        #expect(output.delivered.map(\.bytes) == expected)
        #expect(output.delivered.filter(\.recovered).count == loss.drop.count - loss.unrecoverable.count)
        let lost = loss.unrecoverable.map { RTPFields(capture.media[$0].1[...])!.sequence }
        #expect(output.lost == lost)
        #expect(output.results == loss.results)
        #expect(output.windows.allSatisfy { $0.repairCount == repairCount })
        let stats = decoder.stats
        #expect(stats.protectionWindows == loss.results.count)
        #expect(stats.windowNoLoss == loss.results.filter { $0 == .noLoss }.count)
        #expect(stats.windowRecoverySuccesses == loss.results.filter { $0 == .recovered }.count)
        #expect(stats.windowRecoveryFailures == loss.results.filter { $0 == .failed }.count)
        #expect(stats.windowError == 0 && stats.repairPacketsMalformed == 0 && stats.recoveriesRejected == 0)
        #expect(stats.recoveredPackets == loss.drop.count - loss.unrecoverable.count)
        #expect(stats.unrecoveredPackets == loss.unrecoverable.count)
    }

    @Test func lostFECIsCoveredByTheOtherDimension() throws {
        let capture = try FECCapture("gstreamer-l4d3.pcap")
        // Drop media 13 and the column FEC that covers it (SNBase of media 13): its row recovers it.
        let seq13 = RTPFields(capture.media[13].1[...])!.sequence
        let column = capture.packets.indices.first { i in
            capture.packets[i].1 == 5002 && (try? SMPTE2022FECPacket.parse(capture.packets[i].2[...]).get().snBase) == seq13
        }
        let (output, decoder) = capture.decode(drop: [13], dropFEC: [try #require(column)], configuration: Self.gstreamer)
        #expect(output.delivered.map(\.bytes) == capture.media.map(\.1))
        #expect(output.results == [.noLoss, .recovered, .noLoss])
        #expect(decoder.stats.repairPackets == 20)
    }

    /// Our encoder fed the senders' media gives their FEC packets: GStreamer's byte for byte
    /// (apart from the FEC flow's own RTP timestamp and sequence number), FFmpeg's apart from
    /// the length-recovery field, where FFmpeg writes the packet length instead of an XOR.
    @Test(arguments: [("gstreamer-l4d3.pcap", 4, 3), ("ffmpeg-l4d4.pcap", 4, 4)])
    func ourEncoderMatchesTheSenders(name: String, columns: Int, rows: Int) throws {
        let capture = try FECCapture(name)
        var encoder = SMPTE2022Encoder(configuration: .init(columns: columns, rows: rows))
        var ours: [[UInt8]] = []
        for (_, packet) in capture.media {
            let out = encoder.add(packet)
            ours += out.column + out.row
        }
        ours += encoder.flush().column
        func key(_ bytes: [UInt8]) -> [UInt8] {
            var copy = bytes
            copy.replaceSubrange(2..<8, with: [0, 0, 0, 0, 0, 0])            // RTP sequence and timestamp
            if name.hasPrefix("ffmpeg") { copy.replaceSubrange(14..<16, with: [0, 0]) }
            return copy
        }
        let theirs = Set((capture.columnFEC + capture.rowFEC).map(key))
        let mine = Set(ours.map(key))
        #expect(theirs.count == capture.columnFEC.count + capture.rowFEC.count)
        #expect(theirs.isSubset(of: mine), "\(theirs.subtracting(mine).count) of theirs not produced")
    }
}

@Suite struct FECSMPTE2022Tests {
    /// Hand-made column FEC packet as FFmpeg lays it out (L = 5, D = 4, SNBase 0x1234).
    static let column: [UInt8] = [0x80, 0x60, 0x00, 0x07, 0, 0, 0x01, 0x00, 0, 0, 0, 0,
                                  0x12, 0x34, 0x05, 0x24, 0xA1, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF,
                                  0x00, 5, 4, 0, 0xAA, 0xBB]

    @Test func headerFieldsAreReadAsSpecified() throws {
        let fec = try SMPTE2022FECPacket.parse(Self.column[...]).get()
        #expect(fec.sequenceNumber == 7 && fec.snBase == 0x1234 && fec.lengthRecovery == 0x0524)
        #expect(fec.extensionFlag && fec.payloadTypeRecovery == 0x21 && fec.mask == 0 && fec.timestampRecovery == 0xDEAD_BEEF)
        #expect(!fec.isRow && fec.offset == 5 && fec.count == 4 && fec.columns == 5 && fec.rows == 4)
        #expect(Array(fec.payload) == [0xAA, 0xBB])
        #expect(fec.serialized(payloadType: 0x60, timestamp: 256) == Self.column)
        var row = Self.column
        row[24] = 0x40; row[25] = 1; row[26] = 5
        let parsedRow = try SMPTE2022FECPacket.parse(row[...]).get()
        #expect(parsedRow.isRow && parsedRow.columns == 5 && parsedRow.rows == nil)
    }

    @Test func everyTruncationIsRefused() {
        for cut in 0..<28 {
            #expect(SMPTE2022FECPacket.parse(Self.column[0..<cut]).failure == .truncated, "cut \(cut)")
        }
        #expect(SMPTE2022FECPacket.parse(Self.column[0..<28]).failure == .emptyPayload)
    }

    @Test(arguments: [
        (16, 0x21 as UInt8, "E bit clear (RFC 2733 header without the SMPTE extension)"),
        (24, 0x80, "X bit set"),
        (24, 0x08, "type 1 index 0 (only XOR)"),
        (24, 0x01, "type 0 index 1 (only XOR)"),
    ])
    func unsupportedHeadersAreRefused(offset: Int, value: UInt8, reason: String) {
        var bytes = Self.column
        bytes[offset] = value
        #expect(SMPTE2022FECPacket.parse(bytes[...]).failure == .unsupported(reason))
    }

    @Test(arguments: [(0x00 as UInt8, 0 as UInt8, 4 as UInt8), (0x00, 5, 0), (0x40, 2, 5), (0x40, 1, 0)])
    func impossibleGeometryIsRefused(flags: UInt8, offset: UInt8, count: UInt8) {
        var bytes = Self.column
        bytes[24] = flags; bytes[25] = offset; bytes[26] = count
        #expect(SMPTE2022FECPacket.parse(bytes[...]).failure == .badGeometry(offset: offset, count: count, isRow: flags != 0))
    }

    @Test func malformedAndMismatchedFECIsCountedAndDropped() {
        var decoder = SMPTE2022Decoder(configuration: .init(columns: 4, rows: 4))
        var output = FECOutput()
        output.add(decoder.receiveFEC(Self.column[...], nowNanoseconds: 0))       // L = 5 ≠ 4
        output.add(decoder.receiveFEC([0x80, 0x60][...], nowNanoseconds: 1))
        var random = SplitMix(seed: 5)
        for i in 0..<2000 {
            var bytes = (0..<random.below(80)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if bytes.count > 28 { bytes[0] = 0x80; bytes[16] |= 0x80; bytes[24] &= 0x40 }
            output.add(decoder.receiveFEC(bytes[...], nowNanoseconds: Int64(i)))
            output.add(decoder.receiveMedia(bytes[...], nowNanoseconds: Int64(i)))
        }
        #expect(decoder.stats.repairPacketsMalformed >= 2)
        #expect(decoder.stats.recoveredPackets == 0 && output.delivered.allSatisfy { !$0.recovered })
    }

    /// Loss patterns through our encoder and decoder (L = 4, D = 3, three matrices, matrix 1 = 12–23).
    static let patterns: [MatrixLoss] = [
        MatrixLoss(drop: [], results: [.noLoss, .noLoss, .noLoss]),
        MatrixLoss(drop: [12], results: [.noLoss, .recovered, .noLoss]),
        MatrixLoss(drop: [23], results: [.noLoss, .recovered, .noLoss]),
        MatrixLoss(drop: [16, 17, 18, 19], results: [.noLoss, .recovered, .noLoss]),
        MatrixLoss(drop: [12, 13, 16, 17], results: [.noLoss, .failed, .noLoss], unrecoverable: [12, 13, 16, 17]),
        MatrixLoss(drop: [12, 13, 14, 16, 20], results: [.noLoss, .recovered, .noLoss]),
    ]

    @Test(arguments: patterns)
    func encoderToDecoder(loss: MatrixLoss) throws {
        let media = FECPackets.stream(count: 36 + 12, firstSequence: 65_520, tsPackets: { [7, 7, 3, 7][$0 % 4] })
        var encoder = SMPTE2022Encoder(configuration: .init(columns: 4, rows: 3))
        var decoder = SMPTE2022Decoder(configuration: .init(limits: FECDecoderConfiguration(matrixWaitBoundNanoseconds: 1_000_000_000)))
        var output = FECOutput()
        for (i, packet) in media.enumerated() {
            let now = Int64(i) * 1_000_000
            let fec = encoder.add(packet)
            if !loss.drop.contains(i) { output.add(decoder.receiveMedia(packet[...], nowNanoseconds: now)) }
            for bytes in fec.row + fec.column { output.add(decoder.receiveFEC(bytes[...], nowNanoseconds: now)) }
        }
        output.add(decoder.finish(nowNanoseconds: 1_000_000_000))
        let expected = media.enumerated().filter { !loss.unrecoverable.contains($0.offset) }.map(\.element)
        #expect(output.delivered.map(\.bytes) == expected)
        #expect(Array(output.results.prefix(3)) == loss.results)
        #expect(output.results.count == 4)                 // the fourth matrix ended with its media
        #expect(decoder.stats.recoveredPackets == loss.drop.count - loss.unrecoverable.count)
        // 12 row FEC; the fourth matrix's column FEC waits for a fifth matrix (or flush()).
        #expect(encoder.stats.protectionWindows == 4 && encoder.stats.repairPackets == 4 * 3 + 3 * 4)
        #expect(encoder.flush().column.count == 4)
    }

    @Test func holdIsBoundedWhenAMatrixNeverCompletes() {
        let media = FECPackets.stream(count: 6)
        var decoder = SMPTE2022Decoder(configuration: .init(limits: FECDecoderConfiguration(matrixWaitBoundNanoseconds: 100), columns: 4, rows: 3))
        var output = FECOutput()
        output.add(decoder.receiveMedia(media[0][...], nowNanoseconds: 0))
        output.add(decoder.receiveMedia(media[2][...], nowNanoseconds: 10))
        #expect(output.sequences == [100])
        output.add(decoder.tick(nowNanoseconds: 110))
        #expect(output.sequences == [100, 102] && output.lost == [101])
    }

    @Test func oversizedMatricesAreErrorsAndPassThrough() {
        let media = FECPackets.stream(count: 40, tsPackets: { _ in 1 })
        var encoder = SMPTE2022Encoder(configuration: .init(columns: 5, rows: 4))
        var decoder = SMPTE2022Decoder(configuration: .init(limits: FECDecoderConfiguration(recommendedMaxSymbols: 20),
                                                            maxMatrixPackets: 16))
        var output = FECOutput()
        for (i, packet) in media.enumerated() {
            let fec = encoder.add(packet)
            if i != 25 { output.add(decoder.receiveMedia(packet[...], nowNanoseconds: Int64(i))) }
            for bytes in fec.row + fec.column { output.add(decoder.receiveFEC(bytes[...], nowNanoseconds: Int64(i))) }
        }
        output.add(decoder.finish(nowNanoseconds: 1_000_000))
        #expect(output.results == [.unsupported, .unsupported])
        #expect(output.lost == [125])
        #expect(decoder.stats.windowError == 2 && decoder.stats.windowWarning == 2 && decoder.stats.protectionWindows == 2)
    }
}
