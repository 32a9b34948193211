import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandStreamer

/// Large FLUTE objects through `FileChannels` assembled on disk (spool file beside the served
/// tree, ISA-L Reed-Solomon, `DirectoryFileSink` renaming the verified spool file into place).
@Suite(.serialized) struct FileChannelDiskTests {
    static let start: Int64 = 1_767_225_600_000_000_000
    static let channel = Channel(id: "updates", name: "Updates", kind: .file, group: .v4(0xEFFF_3101), port: 48_200, origin: .config)

    static func packets(_ files: [FluteFile], rounds: Int) throws -> [ScheduledDatagram] {
        var source = try FluteCarouselSource(flow: "updates", destination: Endpoint(address: .v4(0xEFFF_3101), port: 48_200), files: files,
                                             options: .init(tsi: 1, symbolLength: 1400, maxBlockLength: 200, repairSymbols: 20,
                                                            intervalNanoseconds: 100_000, rounds: rounds),
                                             startNanoseconds: start, math: FluteSend.reedSolomon())
        var out: [ScheduledDatagram] = []
        while source.nextDueNanoseconds != nil { out += source.pop() }
        return out
    }

    static func channels(root: String, threshold: Int = 1 << 19) -> FileChannels {
        let files = FileChannels()
        files.limits = .init(receiver: FluteReceiverConfiguration(diskThresholdBytes: threshold), diskFloorBytes: 0)
        files.sink = DirectoryFileSink(root: root)
        files.apply([.added(channel)])
        return files
    }

    static func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("gs-flute-disk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
    }

    static func memory(_ files: FileChannels) -> Double {
        guard case .object(let members)? = files.table("updates"), case .object(let stats)? = members.first(where: { $0.0 == "stats" })?.1,
              case .number(let bytes)? = stats.first(where: { $0.0 == "assembly_memory_bytes" })?.1 else { return -1 }
        return bytes
    }

    @Test func aFewMegabytesWithFivePercentLossArriveWholeThroughASpoolFile() throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let root = scratch + "/files"
        var generator = SeededBytes(seed: 77)
        let big = FluteFile(path: "bundle.raucb", bytes: generator.bytes(TestEnvironment.isQEMUUser ? 1 << 20 : 4 << 20))
        let small = FluteFile(path: "notes.txt", bytes: Array("small files stay in memory\n".utf8))
        let all = try Self.packets([small, big], rounds: 1)
        let kept = all.enumerated().filter { $0.offset % 20 != 19 }.map(\.element)   // 5 % loss, one round
        let files = Self.channels(root: root)
        var notes: [[UInt8]] = []
        var peak = 0.0
        for (index, datagram) in kept.enumerated() {
            notes += files.receive("updates", datagram.payload[...], at: datagram.dueNanoseconds)
            if index % 500 == 0 { peak = max(peak, Self.memory(files)) }
        }
        let table = files.table("updates")?.encoded ?? ""
        let stored = try #require(FileManager.default.contents(atPath: root + "/updates/bundle.raucb").map { [UInt8]($0) }, "\(table)")
        #expect(MD5.digest(stored) == MD5.digest(big.bytes))
        #expect(stored.count == big.bytes.count)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/updates/notes.txt"))) == small.bytes)
        // The 4 MiB object costs its bookkeeping (a bit per symbol, a few words per block) and the
        // one block being received (200 sources + 20 repairs of 1400 bytes; the carousel sends in order).
        #expect(peak >= 0 && peak < 16_384 + 220 * 1400, "peak assembly memory \(peak) bytes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + ".spool").isEmpty)
        let texts = notes.map { String(decoding: $0, as: UTF8.self) }
        #expect(texts.filter { $0.contains("\"complete\"") }.count == 2, "\(texts)")
        let stat = try FileManager.default.attributesOfItem(atPath: root + "/updates/bundle.raucb")
        #expect((stat[.size] as? Int) == big.bytes.count)
    }

    @Test func aRestartMidObjectLeavesNoHalfFileUnderTheServedName() throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let root = scratch + "/files"
        var generator = SeededBytes(seed: 78)
        let big = FluteFile(path: "bundle.raucb", bytes: generator.bytes(2 << 20))
        let all = try Self.packets([big], rounds: 1)
        do {
            let files = Self.channels(root: root)
            for datagram in all.prefix(all.count / 2) { _ = files.receive("updates", datagram.payload[...], at: datagram.dueNanoseconds) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: root + ".spool").count == 1)
            #expect(!FileManager.default.fileExists(atPath: root + "/updates/bundle.raucb"))
        }
        // A crash leaves the spool file behind (here: one planted as a killed process would).
        FileManager.default.createFile(atPath: root + ".spool/flute-1-1", contents: Data(repeating: 7, count: 1000))
        let restarted = Self.channels(root: root)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + ".spool").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: root + "/updates/bundle.raucb"))
        // The carousel's next round completes it.
        for datagram in try Self.packets([big], rounds: 1) { _ = restarted.receive("updates", datagram.payload[...], at: datagram.dueNanoseconds) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/updates/bundle.raucb"))) == big.bytes)
    }

    @Test func aDiskWithoutRoomRefusesTheObjectAndCountsIt() throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let root = scratch + "/files"
        let files = FileChannels()
        files.limits = .init(receiver: FluteReceiverConfiguration(diskThresholdBytes: 1 << 20), diskFloorBytes: Int.max / 4)
        files.sink = DirectoryFileSink(root: root)
        files.apply([.added(Self.channel)])
        var generator = SeededBytes(seed: 79)
        let all = try Self.packets([FluteFile(path: "bundle.raucb", bytes: generator.bytes(2 << 20))], rounds: 1)
        for datagram in all { _ = files.receive("updates", datagram.payload[...], at: datagram.dueNanoseconds) }
        let table = files.table("updates")?.encoded ?? ""
        #expect(table.contains("\"dropped_no_disk_space\":\(all.count - 1)"), "\(table)")
        #expect(!FileManager.default.fileExists(atPath: root + "/updates/bundle.raucb"))
    }
}
