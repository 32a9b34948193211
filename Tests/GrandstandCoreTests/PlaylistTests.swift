import Foundation
import Testing
import TestSupport
@testable import GrandstandCore

/// Packages packets into a fresh packager (one `ingest` per packet, gap markers where asked).
func package(_ packets: [SyntheticStream.Packet], segmenter: SegmenterConfiguration = SegmenterConfiguration(),
             window: WindowConfiguration = WindowConfiguration(), gapBefore: Set<Int> = [], finish: Bool = false,
             cmaf: Bool = false, snapshot: ((HLSPackager) -> Void)? = nil) -> HLSPackager {
    var packager = HLSPackager(segmenter: segmenter, window: window, cmaf: cmaf)
    for (i, p) in packets.enumerated() {
        if gapBefore.contains(i) {
            _ = packager.gap(lostPackets: 3, timestampNanoseconds: p.capture)
        }
        let update = packager.ingest(p.bytes[...], timestampNanoseconds: p.capture)
        if !update.isEmpty { snapshot?(packager) }
    }
    if finish { _ = packager.finish() }
    return packager
}

/// Compares with Tests/Fixtures/hls/NAME (GRANDSTAND_UPDATE_GOLDEN=1 rewrites it).
func expectGolden(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let path = Fixtures.path("hls/" + name)
    if ProcessInfo.processInfo.environment["GRANDSTAND_UPDATE_GOLDEN"] == "1" {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let golden = String(decoding: try Fixtures.bytes("hls/" + name), as: UTF8.self)
    #expect(text == golden, "playlist differs from \(name):\n\(text)", sourceLocation: sourceLocation)
}

/// The media segments of a playlist as a client computes them (RFC 8216bis §4.4.3.2–3).
struct ParsedPlaylist {
    struct Entry: Equatable { var sequence: Int; var discontinuitySequence: Int; var uri: String; var duration: String; var gap: Bool }
    var targetDuration = 0
    var entries: [Entry] = []
    var parts: [String] = []
    var tags: [String] = []

    init(_ text: String) {
        var msn = 0, dseq = 0
        var duration = "", gap = false
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#") { tags.append(line) }
            if line.hasPrefix("#EXT-X-TARGETDURATION:") { targetDuration = Int(line.dropFirst(22)) ?? -1 }
            else if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { msn = Int(line.dropFirst(22)) ?? -1 }
            else if line.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE:") { dseq = Int(line.dropFirst(30)) ?? -1 }
            else if line == "#EXT-X-DISCONTINUITY" { dseq += 1 }
            else if line == "#EXT-X-GAP" { gap = true }
            else if line.hasPrefix("#EXTINF:") { duration = String(line.dropFirst(8).split(separator: ",")[0]) }
            else if line.hasPrefix("#EXT-X-PART:") { parts.append(line) }
            else if !line.hasPrefix("#") {
                entries.append(Entry(sequence: msn, discontinuitySequence: dseq, uri: line, duration: duration, gap: gap))
                msn += 1
                gap = false
            }
        }
    }
}

@Suite struct PlaylistTests {
    @Test func steadyStreamLiveAndEndedGolden() throws {
        let live = package(try timedFixturePackets())
        try expectGolden(live.livePlaylist(), "steady-live.m3u8")
        let ended = package(try timedFixturePackets(), finish: true)
        try expectGolden(ended.livePlaylist(), "steady-ended.m3u8")
        // A classic client sees two 2-second segments, every EXTINF within TARGETDURATION.
        let parsed = ParsedPlaylist(ended.livePlaylist())
        #expect(parsed.entries.map(\.uri) == ["seg0.ts", "seg1.ts"])
        #expect(parsed.entries.map(\.duration) == ["2.00000", "2.00000"])
        #expect(parsed.parts.count == 10)
    }

    @Test func restartGolden() throws {
        var stream = SyntheticStream()
        stream.frames = 150
        stream.jump = (at: 75, ticks: 45_000_000)
        let packager = package(stream.packets(), finish: true)
        try expectGolden(packager.livePlaylist(), "restart.m3u8")
        #expect(packager.livePlaylist().contains("#EXT-X-DISCONTINUITY\n"))
    }

    @Test func gapGolden() throws {
        var packets = SyntheticStream().packets()
        let lostFrom = packets.firstIndex { $0.frame == 37 }! + 1
        let lostTo = packets.firstIndex { $0.frame == 41 }!
        packets.removeSubrange(lostFrom..<lostTo)
        let packager = package(packets, gapBefore: [lostFrom], finish: true)
        try expectGolden(packager.livePlaylist(), "gap.m3u8")
        let parsed = ParsedPlaylist(packager.livePlaylist())
        #expect(parsed.entries.map(\.gap) == [false, true, false])
        // The gap segment's URI holds the PAT and PMT only (for clients that load it anyway).
        guard case .gap(let bytes) = packager.resource(named: "seg1.ts") else { Issue.record("not a gap"); return }
        #expect(bytes.count == 2 * 188)
    }

    @Test func mediaAndDiscontinuitySequencesHoldWhileTheWindowSlides() {
        var stream = SyntheticStream()
        stream.frames = 600
        stream.jump = (at: 200, ticks: -1_000_000)
        stream.discontinuityAt = [400]
        var seen: [String: ParsedPlaylist.Entry] = [:]
        var previousFirst = -1, previousDSEQ = -1, snapshots = 0
        let packager = package(stream.packets(), window: WindowConfiguration(window: 6), snapshot: { p in
            snapshots += 1
            let parsed = ParsedPlaylist(p.livePlaylist())
            guard let first = parsed.entries.first else { return }
            // MEDIA-SEQUENCE and DISCONTINUITY-SEQUENCE never go back (§6.2.2) …
            #expect(first.sequence >= previousFirst && first.discontinuitySequence >= previousDSEQ)
            previousFirst = first.sequence
            previousDSEQ = first.discontinuitySequence
            for e in parsed.entries {
                // … and a segment keeps its URI, duration and discontinuity sequence number.
                if let old = seen[e.uri] { #expect(old == e, "\(e.uri) changed") }
                seen[e.uri] = e
                #expect(Double(e.duration).map { Int($0.rounded()) <= parsed.targetDuration } == true)
            }
        })
        #expect(snapshots > 50)
        #expect(seen.values.map(\.discontinuitySequence).max() == 2)
        // The window keeps at least 6 s: the oldest segment goes only when the rest still cover it.
        #expect(packager.window.durationTicks >= 6 * 90_000)
        #expect(packager.window.statistics.segmentsEvicted > 0)
    }

    @Test func byteCapEvictsTheOldestSegmentsFirst() {
        var stream = SyntheticStream()
        stream.frames = 500
        let packager = package(stream.packets(), window: WindowConfiguration(window: 30, byteCap: 60_000, retiredSegments: 1))
        #expect(packager.window.bytes <= 60_000)
        #expect(packager.window.statistics.segmentsEvictedForBytes > 0)
        #expect(packager.window.completeSegments.count >= 1)
        let first = packager.window.segments.first!.mediaSequence
        #expect(packager.resource(named: "seg\(first).ts") != .notFound)
        #expect(packager.resource(named: "seg\(first - 3).ts") == .notFound)
    }

    @Test func resourcesByName() throws {
        let packager = package(try timedFixturePackets())
        guard case .media(let part) = packager.resource(named: "seg1.2.ts"),
              case .media(let segment) = packager.resource(named: "seg0.ts") else { Issue.record("missing"); return }
        #expect(part.count % 188 == 0 && segment.count % 188 == 0)
        #expect(packager.resource(named: "seg1.4.ts") == .notYetAvailable)  // the preload hint
        #expect(packager.resource(named: "seg1.ts") == .notYetAvailable)    // the open segment
        #expect(packager.resource(named: "seg1.5.ts") == .notFound)
        #expect(packager.resource(named: "seg2.0.ts") == .notFound)
        for bad in ["seg.ts", "seg-1.ts", "seg1..ts", "seg1.2.3.ts", "../seg0.ts", "seg0.ts.gz", "seg99999999999.ts", "seg+1.ts"] {
            #expect(packager.resource(named: bad) == .notFound, "\(bad)")
        }
    }
}
