import Testing
@testable import GrandstandCore

/// Demuxes `bytes` fed in chunks; returns every event and the demuxer.
func demux(_ bytes: [UInt8], chunks: [Int], selection: TSDemuxer.PESSelection = .all) -> ([TSDemuxEvent], TSDemuxer) {
    var demuxer = TSDemuxer(selection: selection)
    var events: [TSDemuxEvent] = []
    chunked(bytes, chunks) { chunk, _ in events += demuxer.feed(chunk, timestampNanoseconds: 0) }
    events += demuxer.flush()
    return (events, demuxer)
}

func pesPackets(_ events: [TSDemuxEvent]) -> [PESPacket] {
    events.compactMap { if case .pes(let p) = $0 { return p } else { return nil } }
}

@Suite struct TransportStreamDemuxTests {
    @Test func fixtureProgramAndEveryFrame() throws {
        let ts = try TSFixture.bytes()
        let (events, demuxer) = demux(ts, chunks: [ts.count])
        let pmt = try #require(demuxer.pmt)
        #expect(demuxer.pat?.programs == [1: TSFixture.pmtPID])
        #expect(pmt.pcrPID == TSFixture.videoPID)
        #expect(pmt.streams.map(\.pid) == [TSFixture.videoPID] && pmt.streams.map(\.streamType) == [.h264])
        #expect(pmt.timingStream?.pid == TSFixture.videoPID)
        #expect(demuxer.patPackets.count == 1 && demuxer.pmtPackets.count == 1)

        let pes = pesPackets(events)
        #expect(pes.count == TSFixture.frames)
        #expect(pes.allSatisfy { $0.complete && $0.streamType == .h264 && $0.header.streamID == 0xE0 })
        // DTS advance one frame at a time; the first PTS is two frames after the first DTS (B-frames).
        #expect(pes.first?.dts == TSFixture.firstDTS && pes.first?.pts == TSFixture.firstPTS)
        #expect(pes.compactMap(\.dts) == (0..<Int64(TSFixture.frames)).map { TSFixture.firstDTS + $0 * TSFixture.frameTicks })
        let detector = NALUnitKeyframeDetector()
        let keyframes = pes.indices.filter { detector.isKeyframe(pes[$0].payload[...], streamType: .h264) }
        #expect(keyframes == [0, 25, 50, 75])
        // Every PES payload starts with an Annex-B start code.
        #expect(pes.allSatisfy { Array($0.payload.prefix(4)) == [0, 0, 0, 1] })
        #expect(demuxer.statistics.continuityErrors == 0 && demuxer.statistics.sectionErrors == 0)
        #expect(demuxer.statistics.packets == ts.count / 188)
        // PCRs are on the video PID and never go back.
        let pcrs = events.compactMap { if case .pcr(_, let v, _) = $0 { return v } else { return nil } }
        #expect(!pcrs.isEmpty)
        #expect(zip(pcrs, pcrs.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(pcrs[0] / 300 <= TSFixture.firstDTS)
    }

    static let splits: [[Int]] = [[188], [1], [7], [100, 376, 3], [1316], [187, 189], [5000, 1, 2, 3]]

    @Test(arguments: splits)
    func anySplitGivesTheSameEvents(chunks: [Int]) throws {
        let ts = try TSFixture.bytes()
        let (whole, _) = demux(ts, chunks: [ts.count])
        let (split, demuxer) = demux(ts, chunks: chunks)
        let same = split == whole
        #expect(same)
        #expect(demuxer.droppedBytes == 0)
    }

    @Test func timingStreamSelectionReassemblesOnlyTheVideo() throws {
        let pid: UInt16 = 0x200, audio: UInt16 = 0x201
        var bytes: [UInt8] = []
        bytes += TSBuilder.psiPackets(pid: 0, section: TSBuilder.pat(pmtPID: pid))[0]
        bytes += TSBuilder.psiPackets(pid: pid, section: TSBuilder.pmt(pcrPID: 0x300, streams: [(.aacADTS, audio, []), (.h264, 0x300, [])]))[0]
        bytes += TSBuilder.packet(pid: audio, cc: 0, pusi: true, payload: TSBuilder.pesHeader(streamID: 0xC0, pts: 900, payloadLength: 10) + [UInt8](repeating: 7, count: 10))
        bytes += TSBuilder.packet(pid: 0x300, cc: 0, pusi: true, payload: TSBuilder.pesHeader(pts: 1800, dts: 900) + [0, 0, 1, 0x65, 1, 2, 3])
        let (all, _) = demux(bytes, chunks: [bytes.count])
        let (timing, d) = demux(bytes, chunks: [bytes.count], selection: .timingStream)
        #expect(pesPackets(all).map(\.pid) == [audio, 0x300])
        #expect(pesPackets(timing).map(\.pid) == [0x300])
        // The video is the timing stream even though audio is listed first.
        #expect(d.pmt?.timingStream?.pid == 0x300)
        let audioPES = try #require(pesPackets(all).first)
        #expect(audioPES.payload == [UInt8](repeating: 7, count: 10) && audioPES.complete && audioPES.dts == 900)
    }

    @Test func boundedPESCompletesWithoutWaitingForTheNextOne() {
        var bytes: [UInt8] = []
        bytes += TSBuilder.psiPackets(pid: 0, section: TSBuilder.pat(pmtPID: 0x20))[0]
        bytes += TSBuilder.psiPackets(pid: 0x20, section: TSBuilder.pmt(pcrPID: 0x21, streams: [(.aacADTS, 0x21, [])]))[0]
        let payload = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let pes = TSBuilder.pesHeader(streamID: 0xC0, pts: 12345, payloadLength: payload.count) + payload
        bytes += TSBuilder.packet(pid: 0x21, cc: 0, pusi: true, payload: Array(pes.prefix(184)))
        bytes += TSBuilder.packet(pid: 0x21, cc: 1, payload: Array(pes.dropFirst(184)))
        var demuxer = TSDemuxer()
        let events = demuxer.feed(bytes[...], timestampNanoseconds: 7)
        let got = pesPackets(events)
        #expect(got.count == 1)
        #expect(got.first?.payload == payload && got.first?.pts == 12345 && got.first?.timestampNanoseconds == 7)
        #expect(demuxer.flush().isEmpty)
    }

    @Test func sectionsSpanPacketsAndCRCIsChecked() throws {
        // A PMT with 40 streams, each with a 20-byte descriptor, spans 6 packets.
        let streams = (0..<40).map { i in (StreamType.privatePES, UInt16(0x300 + i), [0x0A, 18] + [UInt8](repeating: 0x61, count: 18)) }
        let pmt = TSBuilder.pmt(pcrPID: 0x300, streams: streams, version: 3)
        var bytes = TSBuilder.psiPackets(pid: 0, section: TSBuilder.pat(pmtPID: 0x40))[0]
        let pmtPackets = TSBuilder.psiPackets(pid: 0x40, section: pmt)
        #expect(pmtPackets.count > 5)
        for p in pmtPackets { bytes += p }
        let (events, demuxer) = demux(bytes, chunks: [7])
        let table = try #require(demuxer.pmt)
        #expect(table.version == 3 && table.streams.count == 40 && table.streams.last?.pid == 0x327)
        #expect(table.streams[0].language == "aaa")
        #expect(demuxer.pmtPackets == pmtPackets)
        #expect(events.filter { if case .programMap = $0 { return true } else { return false } }.count == 1)

        // The same stream with one bit flipped inside the PMT: CRC fails, nothing applied.
        var corrupt = bytes
        corrupt[188 * 2 + 50] ^= 0x04
        let (badEvents, bad) = demux(corrupt, chunks: [corrupt.count])
        #expect(bad.pmt == nil)
        #expect(badEvents.contains(.sectionError(pid: 0x40)))
        #expect(bad.statistics.sectionErrors == 1)
    }

    @Test func twoSectionsInOnePacketAndAPointerFieldTail() {
        // One packet: pointer 0, the PAT, then the stuffing; PMT split so its tail rides in front
        // of a new section (pointer_field > 0) in the next PUSI packet.
        let pat = TSBuilder.pat(pmtPID: 0x50)
        let pmtV0 = TSBuilder.pmt(pcrPID: 0x51, streams: [(.h264, 0x51, [])], version: 0)
        let pmtV1 = TSBuilder.pmt(pcrPID: 0x51, streams: [(.h264, 0x51, []), (.aacADTS, 0x52, [])], version: 1)
        var bytes = TSBuilder.psiPackets(pid: 0, section: pat)[0]
        // Packet 1: pointer 0, first 10 bytes of PMT v0.
        var p1: [UInt8] = [0] + pmtV0.prefix(10)
        p1 += [UInt8](repeating: 0xFF, count: 0)
        bytes += TSBuilder.packet(pid: 0x50, cc: 0, pusi: true, payload: p1)
        // Packet 2: pointer = rest of v0, then v0's tail, then v1 whole, then stuffing.
        let tail = Array(pmtV0.dropFirst(10))
        var p2: [UInt8] = [UInt8(tail.count)] + tail + pmtV1
        p2 += [UInt8](repeating: 0xFF, count: 184 - p2.count)
        bytes += TSBuilder.packet(pid: 0x50, cc: 1, pusi: true, payload: p2)
        let (events, demuxer) = demux(bytes, chunks: [bytes.count])
        let maps = events.compactMap { if case .programMap(let m) = $0 { return m.version } else { return nil } }
        #expect(maps == [0, 1])
        #expect(demuxer.pmt?.streams.map(\.pid) == [0x51, 0x52])
    }

    @Test func versionChangesAreReportedAndRepeatsAreNot() {
        var bytes: [UInt8] = []
        let pat = TSBuilder.psiPackets(pid: 0, section: TSBuilder.pat(pmtPID: 0x60))[0]
        for cc in 0..<3 { var p = pat; p[3] = (p[3] & 0xF0) | UInt8(cc); bytes += p }
        for (cc, version) in [(0, 1), (1, 1), (2, 2)] {
            let streams: [(StreamType, UInt16, [UInt8])] = version == 1 ? [(.h264, 0x61, [])] : [(.hevc, 0x62, [])]
            bytes += TSBuilder.psiPackets(pid: 0x60, section: TSBuilder.pmt(pcrPID: 0x61, streams: streams, version: UInt8(version)), firstCC: cc)[0]
        }
        let (events, demuxer) = demux(bytes, chunks: [188])
        #expect(events.filter { if case .programAssociation = $0 { return true } else { return false } }.count == 1)
        let maps = events.compactMap { if case .programMap(let m) = $0 { return m.version } else { return nil } }
        #expect(maps == [1, 2])
        #expect(demuxer.pmt?.timingStream?.streamType == .hevc)
    }

    @Test func continuityLossDropsThePartialPESAndIsReported() throws {
        let ts = try TSFixture.bytes()
        // Drop one video packet from the middle of the second frame's PES.
        var packets = stride(from: 0, to: ts.count, by: 188).map { Array(ts[$0..<($0 + 188)]) }
        let videoNonStart = packets.indices.filter { i in
            let p = packets[i]
            return (UInt16(p[1] & 0x1F) << 8 | UInt16(p[2])) == TSFixture.videoPID && p[1] & 0x40 == 0
        }
        packets.remove(at: videoNonStart[3])
        let (events, demuxer) = demux(packets.flatMap { $0 }, chunks: [188])
        #expect(demuxer.statistics.continuityErrors == 1)
        #expect(events.contains { if case .continuityError(TSFixture.videoPID, _, _) = $0 { return true } else { return false } })
        #expect(pesPackets(events).count == TSFixture.frames - 1)
        #expect(demuxer.statistics.pesDiscarded == 1)
    }

    @Test func garbageBeforeAndBetweenPacketsIsSkippedToTheNextSync() throws {
        let ts = try TSFixture.bytes()
        var noisy: [UInt8] = [1, 2, 3, 0x47, 5]
        noisy += ts.prefix(188 * 10)
        noisy += [0x00, 0x47, 0x11]
        noisy += ts.dropFirst(188 * 10)
        let (clean, _) = demux(ts, chunks: [ts.count])
        let (events, demuxer) = demux(noisy, chunks: [61])
        let same = pesPackets(events) == pesPackets(clean)
        #expect(same)
        #expect(demuxer.droppedBytes == 8)
    }

    @Test func pesHeaderTimestampsRoundTrip() {
        for (pts, dts) in [(Int64(0), Int64?.none), (0x1_FFFF_FFFF, 0x1_2345_6789), (90_000, 86_400)] {
            let header = TSBuilder.pesHeader(pts: pts, dts: dts)
            guard case .header(let h) = PESHeader.parse(header[...]) else { Issue.record("no header"); continue }
            #expect(h.pts == pts && h.dts == dts && h.headerLength == header.count)
        }
        #expect(PESHeader.parse([0, 0, 1, 0xE0, 0, 0, 0x80][...]) == .incomplete)
        #expect(PESHeader.parse([0, 0, 2, 0xE0, 0, 0, 0x80, 0, 0][...]) == .invalid)
    }

    @Test func pcrIsReadFromTheAdaptationField() {
        let value: Int64 = 8_589_934_591 * 300 + 299
        let packet = TSBuilder.packet(pid: 0x100, cc: 0, payload: [], pcr: value)
        #expect(ProgramClockReference.read(packet[...]) == value)
        #expect(ProgramClockReference.read(TSBuilder.packet(pid: 0x100, cc: 0, payload: [1])[...]) == nil)
    }

    @Test func crcMatchesTheMPEG2CheckValue() {
        #expect(CRC32MPEG2.checksum(Array("123456789".utf8)) == 0x0376_E6E7)
    }

    @Test func nalScanFindsH264AndHEVCKeyframes() {
        let d = NALUnitKeyframeDetector()
        #expect(d.isKeyframe([0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x65, 0x88][...], streamType: .h264))
        #expect(!d.isKeyframe([0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x41, 0x9A][...], streamType: .h264))
        // HEVC: IDR_W_RADL (19) and CRA (21) are IRAP; TRAIL_R (1) is not.
        #expect(d.isKeyframe([0, 0, 1, 19 << 1, 1][...], streamType: .hevc))
        #expect(d.isKeyframe([0, 0, 1, 21 << 1, 1][...], streamType: .hevc))
        #expect(!d.isKeyframe([0, 0, 1, 1 << 1, 1][...], streamType: .hevc))
    }
}
