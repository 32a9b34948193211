import GrandstandCore
import Testing

/// The RTP/TS source: RFC 2250 packetisation of the sample, PCR-paced due times, looping.
struct StreamerRTPTests {
    static let group = Endpoint(address: .v4(0xEFFF_1401), port: 5000)   // 239.255.20.1

    @Test func sampleBecomesSevenPacketRTPDatagrams() throws {
        let bytes = try StreamerSample.bytes()
        let stream = try PacedTransportStream(bytes)
        let identity = RTPIdentity(ssrc: 0x1234_5678, initialSequence: 100, initialTimestamp: 4_000_000_000)
        let start: Int64 = 1_000_000_000_000
        var source = RTPTransportStreamSource(flow: "bowl", destination: Self.group, stream: stream, identity: identity,
                                              startNanoseconds: start, passes: 1)
        let datagrams = StreamerSample.drain(&source)
        let tsPackets = bytes.count / 188
        #expect(datagrams.count == (tsPackets + 6) / 7)
        #expect(source.nextDueNanoseconds == nil)
        var reassembled: [UInt8] = []
        var previousTimestamp: UInt32? = nil
        var worstTimestampError: Int64 = 0
        for (n, datagram) in datagrams.enumerated() {
            #expect(datagram.flow == "bowl")
            #expect(datagram.destination == Self.group)
            let rtp = try RTPPacket.parse(datagram.payload).get()
            #expect(rtp.payloadType == 33)
            #expect(rtp.ssrc == 0x1234_5678)
            #expect(rtp.sequenceNumber == UInt16(truncatingIfNeeded: 100 + n))
            #expect(rtp.marker == false)
            #expect(rtp.payload.count == (n == datagrams.count - 1 ? (tsPackets - 7 * n) * 188 : 7 * 188))
            reassembled.append(contentsOf: rtp.payload)
            // Due time = PCR-derived time of the datagram's first TS packet.
            #expect(datagram.dueNanoseconds == start + stream.packetOffsets[7 * n])
            // Timestamp (90 kHz, wrapping past 2^32) advances monotonically with the due time.
            let ticks = Int64(rtp.timestamp &- identity.initialTimestamp)
            worstTimestampError = max(worstTimestampError, abs(ticks - (datagram.dueNanoseconds - start) * 9 / 100_000))
            if let previousTimestamp { #expect(rtp.timestamp &- previousTimestamp < 1 << 31) }
            previousTimestamp = rtp.timestamp
        }
        #expect(worstTimestampError == 0)
        #expect(reassembled == bytes)
        // Pacing spans the file: last due ≈ 20 s after the first.
        let span = (datagrams.last?.dueNanoseconds ?? 0) - start
        #expect(abs(span - 20_020_000_000) < 100_000_000)
    }

    @Test func loopingKeepsSequenceTimestampAndContinuityGoing() throws {
        let stream = try PacedTransportStream(try StreamerSample.bytes())
        let identity = RTPIdentity(ssrc: 7, initialSequence: 65_000, initialTimestamp: 0xFFFF_0000)
        var source = RTPTransportStreamSource(flow: "bowl", destination: Self.group, stream: stream, identity: identity,
                                              startNanoseconds: 0, passes: 3)
        let datagrams = StreamerSample.drain(&source)
        let perPass = source.datagramsPerPass
        #expect(datagrams.count == 3 * perPass)
        #expect(source.pass == 3)
        var continuity = ContinuityTracker()
        var discontinuityFlags: [Int] = []
        var previous: (sequence: UInt16, timestamp: UInt32, due: Int64)? = nil
        for (n, datagram) in datagrams.enumerated() {
            let rtp = try RTPPacket.parse(datagram.payload).get()
            if let previous {
                #expect(rtp.sequenceNumber == previous.sequence &+ 1)
                #expect(rtp.timestamp &- previous.timestamp < 1 << 31)
                #expect(datagram.dueNanoseconds > previous.due)
            }
            previous = (rtp.sequenceNumber, rtp.timestamp, datagram.dueNanoseconds)
            for result in TSPacket.split(rtp.payload).packets {
                let packet = try result.get()
                if packet.discontinuityIndicator { discontinuityFlags.append(n) }
                _ = continuity.record(packet)
            }
        }
        // Counters continue across both seams; the time-base restart is flagged once per new pass.
        #expect(continuity.discontinuities == 0)
        let firstPCRDatagram = (stream.pcrPacketIndices.first ?? 0) / 7
        #expect(discontinuityFlags == [perPass + firstPCRDatagram, 2 * perPass + firstPCRDatagram])
        // Pass k starts exactly k loop periods after the start.
        #expect(datagrams[perPass].dueNanoseconds == stream.durationNanoseconds)
        #expect(datagrams[2 * perPass].dueNanoseconds == 2 * stream.durationNanoseconds)
    }

    @Test func identityIsStablePerNameAndSeed() {
        #expect(RTPIdentity(name: "bowl") == RTPIdentity(name: "bowl"))
        #expect(RTPIdentity(name: "bowl") != RTPIdentity(name: "bowl-2"))
        #expect(RTPIdentity(name: "bowl", seed: 1) != RTPIdentity(name: "bowl", seed: 2))
        #expect(RTPIdentity(name: "x").ssrc & 1 == 1)
    }

    @Test func ticksConvertAtTheClockRate() {
        #expect(RTPHeader.ticks(1_000_000_000) == 90_000)
        #expect(RTPHeader.ticks(11_111) == 0)
        #expect(RTPHeader.ticks(11_112) == 1)
        #expect(RTPHeader.ticks(100_000 * 1_000_000_000) == UInt32(truncatingIfNeeded: Int64(9_000_000_000)))
        #expect(RTPHeader.ticks(1_000_000_000, clockRate: 1000) == 1000)
    }
}
