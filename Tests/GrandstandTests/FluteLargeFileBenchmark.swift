import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandStreamer

/// The 230 MiB measurement of docs/files.md "Large files" (a manual benchmark, not CI): a random
/// file sent by `send --files`' carousel (read a block at a time), 5 % of packets lost, received
/// by `FileChannels` into a spool file and renamed into place by `DirectoryFileSink`. Runs only
/// with GRANDSTAND_BENCH_FLUTE_MIB set (e.g. 230); prints packets, repair overhead, the
/// transmission time at 20 Mbit/s, the receive time and the process's peak RSS.
@Suite(.serialized) struct FluteLargeFileBenchmark {
    static let mebibytes = ProcessInfo.processInfo.environment["GRANDSTAND_BENCH_FLUTE_MIB"].flatMap(Int.init)

    static func peakRSSKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    @Test(.enabled(if: mebibytes != nil)) func aLargeRandomFileAtTwentyMegabitsWithFivePercentLoss() throws {
        let size = (Self.mebibytes ?? 1) << 20
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("gs-flute-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work + "/send", withIntermediateDirectories: true)
        // A random file written a MiB at a time (never whole in memory).
        let handle = try #require(FileHandle(forWritingAtPath: { FileManager.default.createFile(atPath: work + "/send/bundle.raucb", contents: nil); return work + "/send/bundle.raucb" }()))
        var random = SeededBytes(seed: 230)
        for _ in 0..<(size >> 20) { handle.write(Data(random.bytes(1 << 20))) }
        try handle.close()
        let startRSS = Self.peakRSSKiB()
        // 1400-byte symbols, 200 sources + 30 repairs per block (15 %); one packet every 584 µs is
        // 20 Mbit/s of 1460-byte IP packets (1400 + LCT/ALC 32 + UDP/IP 28).
        let interval: Int64 = 584_000
        let files = try FluteSend.read(directory: work + "/send")
        #expect(files.first?.reader != nil)
        var source = try FluteCarouselSource(flow: "bench", destination: Endpoint(address: .v4(0xEFFF_3101), port: 48_200), files: files,
                                             options: .init(tsi: 1, symbolLength: 1400, maxBlockLength: 200, repairSymbols: 30,
                                                            intervalNanoseconds: interval, rounds: 1),
                                             startNanoseconds: 1_767_225_600_000_000_000, math: FluteSend.reedSolomon())
        let channels = FileChannels()
        channels.limits = .init(receiver: FluteReceiverConfiguration(diskOnly: true), diskFloorBytes: 0)
        channels.sink = DirectoryFileSink(root: work + "/files")
        channels.apply([.added(Channel(id: "updates", name: "Updates", kind: .file, group: .v4(0xEFFF_3101), port: 48_200, origin: .config))])
        var loss = SeededBytes(seed: 5)
        var sent = 0, lost = 0, bytes = 0
        var first: Int64 = 0, last: Int64 = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            while source.nextDueNanoseconds != nil {
                for datagram in source.pop() {
                    if sent == 0 { first = datagram.dueNanoseconds }
                    last = datagram.dueNanoseconds
                    sent += 1
                    bytes += datagram.payload.count + 28
                    let draw = loss.bytes(2)
                    if (Int(draw[0]) << 8 | Int(draw[1])) % 10_000 < 500 { lost += 1; continue }
                    _ = channels.receive("updates", datagram.payload[...], at: datagram.dueNanoseconds)
                }
            }
        }
        let received = work + "/files/updates/bundle.raucb"
        let whole = FileManager.default.contentsEqual(atPath: received, andPath: work + "/send/bundle.raucb")
        #expect(whole, "\(channels.table("updates")?.encoded ?? "")")
        let sources = (size + 1399) / 1400
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("""
            FLUTE bench: \(size >> 20) MiB, \(sent) packets (\(sources) source symbols, repair overhead \
            \(String(format: "%.1f", Double(sent - sources) * 100 / Double(sources))) %), \(lost) lost \
            (\(String(format: "%.2f", Double(lost) * 100 / Double(sent))) %), \(bytes * 8 / 1_000_000) Mbit on the wire; \
            transmission at 20 Mbit/s \(String(format: "%.1f", Double(last - first + interval) / 1e9)) s; \
            received whole: \(whole); send+receive CPU \(String(format: "%.1f", seconds)) s; \
            peak RSS \(Self.peakRSSKiB() / 1024) MiB (\(startRSS / 1024) MiB before)
            """)
    }
}
