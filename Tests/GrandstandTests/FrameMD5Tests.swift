import Foundation
import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandIngest
@testable import GrandstandOperations

/// A capture of `grandstand send`'s output for the sample stream, made in-process: SAP plus RTP
/// from the streamer's scheduler, wrapped in Ethernet/IPv4/UDP and written as a classic pcap.
enum StreamCapture {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("tools/samples/clean.ts").path
    static let origin = IPAddress.v4(0xC000_0207)   // 192.0.2.7
    static let group = Endpoint(address: .v4(0xEFFF_1401), port: 5000)

    /// Writes the pcap of one channel "Bowl" sending `ts` once; `loss` drops RTP packets.
    static func write(_ path: String, ts: [UInt8], loss: LossModel.Rule? = nil) throws {
        let stream = try PacedTransportStream(ts)
        let channel = ChannelDescription(name: "Bowl", media: .video, destination: group, bandwidthKbps: 900, origin: origin)
        var scheduler = StreamerScheduler()
        scheduler.add(SAPAnnouncer(destination: Endpoint(address: SAPAnnouncer.defaultGroupV4, port: SAPMessage.port), origin: origin,
                                   channels: [channel], compress: false, startNanoseconds: 0, intervalNanoseconds: 1_000_000_000))
        scheduler.add(RTPTransportStreamSource(flow: "bowl", destination: group, stream: stream, identity: RTPIdentity(name: "bowl"),
                                               startNanoseconds: 200_000_000))
        if let loss { scheduler.setLoss(LossModel(rule: loss, seed: 7), flow: "bowl") }
        var file: [UInt8] = []
        append32(&file, 0xA1B2_C3D4)
        file += [2, 0, 4, 0]                          // version 2.4
        append32(&file, 0); append32(&file, 0)
        append32(&file, 65_535); append32(&file, 1)   // snaplen, LINKTYPE_ETHERNET
        let epoch: Int64 = 1_795_000_000_000_000_000
        var now: Int64 = 0
        while !scheduler.isFinished, let due = scheduler.nextDueNanoseconds {
            now = max(now, due)
            for datagram in scheduler.popDue(nowNanoseconds: now) {
                let frame = ethernet(datagram.payload, to: datagram.destination)
                let time = epoch + datagram.dueNanoseconds
                append32(&file, UInt32(time / 1_000_000_000)); append32(&file, UInt32(time % 1_000_000_000 / 1000))
                append32(&file, UInt32(frame.count)); append32(&file, UInt32(frame.count))
                file += frame
            }
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    static func append32(_ bytes: inout [UInt8], _ value: UInt32) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    static func ethernet(_ payload: [UInt8], to destination: Endpoint) -> [UInt8] {
        guard case .v4(let group) = destination.address, case .v4(let source) = origin else { return [] }
        var frame: [UInt8] = [0x01, 0x00, 0x5E, UInt8(group >> 16 & 0x7F), UInt8(group >> 8 & 0xFF), UInt8(group & 0xFF),
                              0x02, 0, 0, 0, 0, 1, 0x08, 0x00]
        let total = 20 + 8 + payload.count
        var ip: [UInt8] = [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 16, 17, 0, 0]
        for address in [source, group] {
            ip += [UInt8(address >> 24), UInt8(address >> 16 & 0xFF), UInt8(address >> 8 & 0xFF), UInt8(address & 0xFF)]
        }
        var sum: UInt32 = 0
        for i in stride(from: 0, to: 20, by: 2) { sum += UInt32(ip[i]) << 8 | UInt32(ip[i + 1]) }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~UInt16(sum)
        ip[10] = UInt8(checksum >> 8)
        ip[11] = UInt8(checksum & 0xFF)
        frame += ip
        let udpLength = 8 + payload.count
        frame += [0x13, 0x88, UInt8(destination.port >> 8), UInt8(destination.port & 0xFF),
                  UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0]
        frame += payload
        return frame
    }

    /// Replays `capture` (optionally with a configuration file) into a fresh directory.
    /// `health: false` leaves the decode health check out when a test does not look at it.
    static func replay(_ capture: String, config: String? = nil, health: Bool = true, into name: String) throws -> String {
        let out = ReplayTests.scratch(name)
        try? FileManager.default.removeItem(atPath: out)
        let gatewayConfig = try config.map { path throws(ConfigFiles.Rejection) in try ConfigFiles.gateway(path) }
        var hls = gatewayConfig?.hls ?? GatewayConfig.HLS()
        if !health { hls.videoHealth = false }
        _ = try Replay(capturePath: capture, outputDirectory: out, configuration: IngestConfiguration.product(gatewayConfig),
                       hls: hls).run()
        return out
    }

    /// The one video channel's id in a replay's output (from hls/).
    static func channelID(_ out: String) throws -> String {
        let ids = try FileManager.default.contentsOfDirectory(atPath: out + "/hls")
        return try #require(ids.count == 1 ? ids.first : nil, "expected one channel in \(out)/hls, found \(ids)")
    }
}

/// Replay's HLS decodes frame-identical to its source: ffmpeg's framemd5 of every video frame of
/// `tools/samples/clean.ts` equals that of the replayed `hls/ID/index.m3u8` (real ffmpeg).
@Suite(.serialized) struct FrameMD5Tests {
    static let ffmpeg = "/usr/bin/ffmpeg"

    /// The per-frame hashes ffmpeg prints for the video stream of `input` (run in `directory`).
    static func videoFrameHashes(_ input: String, in directory: String) throws -> [String] {
        guard FileManager.default.isExecutableFile(atPath: ffmpeg) else {
            throw FrameMD5Error(description: "\(ffmpeg) not found: install Debian's ffmpeg (make deps); framemd5 needs it")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-hide_banner", "-nostdin", "-v", "error", "-i", input, "-map", "0:v", "-f", "framemd5", "hashes.txt", "-y"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = URL(fileURLWithPath: directory + "/ffmpeg.err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let handle = try FileHandle(forWritingTo: errors)
        defer { try? handle.close() }
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        let complaints = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
        #expect(process.terminationStatus == 0 && complaints.isEmpty, "ffmpeg on \(input): \(complaints)")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/hashes.txt")), as: UTF8.self)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }

    struct FrameMD5Error: Error, CustomStringConvertible { var description: String }

    @Test func replayedPlaylistDecodesFrameIdenticalToTheSample() throws {
        let capture = ReplayTests.scratch("framemd5.pcap")
        try StreamCapture.write(capture, ts: try ReplayTests.read(StreamCapture.sample))
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let out = try StreamCapture.replay(capture, health: false, into: "framemd5")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let id = try StreamCapture.channelID(out)
        let folder = out + "/hls/" + id

        let source = try Self.videoFrameHashes(StreamCapture.sample, in: folder)
        let replayed = try Self.videoFrameHashes("index.m3u8", in: folder)
        #expect(source.count == 500)
        #expect(replayed.count == source.count)
        #expect(replayed == source)
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".ts") }
        #expect(segments.count == 10)
    }
}
