import Testing
import TestSupport
@testable import GrandstandCore

/// The decoders behind the ingest pipeline's RecoveryStage interface.
@Suite struct FECRecoveryStageTests {
    static func payloads(_ outputs: [RecoveryOutput]) -> (payloads: [[UInt8]], recovered: Int, lost: Int) {
        var payloads: [[UInt8]] = [], recovered = 0, lost = 0
        for output in outputs {
            switch output {
            case let .packet(payload, _, wasRecovered):
                payloads.append(Array(payload))
                if wasRecovered { recovered += 1 }
            case let .lost(count, _):
                lost += count
            }
        }
        return (payloads, recovered, lost)
    }

    @Test func reedSolomonStageRepairsAChannel() throws {
        let run = RSRun()
        var stage = ReedSolomonRecovery(math: ReferenceReedSolomon())
        var outputs: [RecoveryOutput] = []
        var sourceIndex = 0, time: Int64 = 0
        for (isRepair, bytes) in run.events {
            time += 1_000_000
            if isRepair {
                outputs += stage.repair(port: 5002, payload: bytes[...], arrivalNanoseconds: time)
            } else {
                defer { sourceIndex += 1 }
                guard ![6, 8].contains(sourceIndex) else { continue }
                let packet = try RTPPacket.parse(bytes).get()
                outputs += stage.media(packet, outcome: .inOrder(skipped: 0), arrivalNanoseconds: time)
            }
        }
        outputs += stage.tick(nowNanoseconds: time + 1_000_000_000)
        let result = Self.payloads(outputs)
        let expected = try run.sources.map { Array(try RTPPacket.parse($0).get().payload) }
        #expect(result.payloads == expected)
        #expect(result.recovered == 2 && result.lost == 0)
        let counters = Dictionary(uniqueKeysWithValues: stage.counters.map { ($0.name, $0.value) })
        #expect(counters["protection_windows"] == 3 && counters["window_recovery_successes"] == 1 && counters["window_no_loss"] == 2)
    }

    @Test func smpte2022StageRepairsTheGStreamerCapture() throws {
        let capture = try FECCapture("gstreamer-l4d3.pcap")
        var stage = SMPTE2022Recovery()
        var outputs: [RecoveryOutput] = []
        var mediaIndex = 0
        for (time, port, bytes) in capture.packets {
            if port == 5000 {
                defer { mediaIndex += 1 }
                guard ![5, 13, 17, 21].contains(mediaIndex) else { continue }
                outputs += stage.media(try RTPPacket.parse(bytes).get(), outcome: .inOrder(skipped: 0), arrivalNanoseconds: time)
            } else {
                outputs += stage.repair(port: port, payload: bytes[...], arrivalNanoseconds: time)
            }
        }
        let result = Self.payloads(outputs)
        let expected = try capture.media.map { Array(try RTPPacket.parse($0.1).get().payload) }
        #expect(result.payloads == expected)
        #expect(result.recovered == 4 && result.lost == 0)
    }

    /// The parsed packet is turned back into the bytes the sender sent (FEC works on them).
    @Test func parsedPacketsReserializeExactly() throws {
        var packet: [UInt8] = [0xB2, 0xA1, 0x12, 0x34, 0, 0, 1, 0, 0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 1, 0, 0, 0, 2,
                               0xBE, 0xDE, 0x00, 0x01, 9, 9, 9, 9]
        packet += [1, 2, 3, 4, 5]
        packet += [0, 0, 3]
        let parsed = try RTPPacket.parse(packet).get()
        #expect(parsed.csrcs.count == 2 && parsed.paddingLength == 3 && parsed.extensionProfile == 0xBEDE)
        #expect(FECRecovery.bytes(of: parsed) == packet)
    }

    @Test func factoryFollowsTheAnnouncedScheme() {
        let factory = FECRecovery.factory(math: { ReferenceReedSolomon() })
        func channel(_ fec: FECParameters) -> Channel {
            Channel(id: "c", name: "C", kind: .video, group: nil, port: 5000, fec: fec, origin: .config)
        }
        #expect(factory(channel(.none)) is PassThroughRecovery)
        #expect(factory(channel(.smpte2022_1(columns: 4, rows: 3))) is SMPTE2022Recovery)
        #expect(factory(channel(.reedSolomon(k: 20, m: 5, repairPort: 5002))) is ReedSolomonRecovery)
        let stage = factory(channel(.smpte2022_1(columns: 4, rows: 3))) as? SMPTE2022Recovery
        #expect(stage?.decoder.geometry?.columns == 4 && stage?.decoder.geometry?.rows == 3)
    }
}
