// Playlist generation from random packet timings: a synthetic H.264 TS (PAT/PMT before keyframes,
// one PES per frame) whose DTS steps, capture-clock steps, keyframes, losses and restarts come
// from the input, through HLSPackager. After every call the live playlists (classic and LL-HLS)
// are parsed and checked against RFC 8216bis (PlaylistChecker):
//   - EXTINF rounded to the nearest integer ≤ EXT-X-TARGETDURATION (§4.4.3.1),
//     EXT-X-PART DURATION ≤ PART-TARGET (§4.4.4.9) with no exception (a DTS step longer than
//     the part target is a hole listed as EXT-X-GAP; finding 2 in docs/reliability.md),
//     and parts numbered 0, 1, … in each segment;
//   - segment URIs are seg<MSN + i>.ts (.m4s in the CMAF playlist); MEDIA-SEQUENCE never
//     decreases (§6.2.1);
//   - a delta update (`_HLS_skip=YES`) lists the same segments after its EXT-X-SKIP;
//   - the CMAF playlist names its header (EXT-X-MAP) before its first segment, every header and
//     listed segment it names can be fetched, and one track cuts out of every segment;
//   - a segment keeps its duration, gap flag and discontinuity sequence number in every playlist
//     that lists it, so DISCONTINUITY-SEQUENCE grows exactly by the discontinuities that left
//     (§4.4.3.3, §6.2.1), and it never decreases.
// Script ops (one byte each, then arguments); byte 0 picks targets and window:
//   0-3: frame, DTS +3600 (or +3003), capture + same ± jitter [jitter i8 ms], bit 0 keyframe
//   4:   frame, DTS + [u16 × 16 ticks], capture + [u16 ms]
//   5:   frame at absolute DTS [u32 << 1] (restart / wrap), capture + [u8 ms]
//   6:   lost packets [count u8] then capture + [u8 × 20 ms]
//   7:   frame with damage: bit 0 its 2nd packet lost (CC error), bit 1 discontinuity_indicator
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    var cursor = FuzzCursor(bytes)
    let shape = cursor.u8()
    let segmenter = SegmenterConfiguration(targetDuration: 0.5 + Double(shape & 0x07) * 0.5,
                                           partTarget: 0.1 + Double(shape >> 3 & 0x07) * 0.05)
    let window = WindowConfiguration(window: 4 + Double(shape >> 6) * 6, byteCap: 1 << 20)
    var packager = HLSPackager(segmenter: segmenter, window: window, cmaf: true)
    var stream = SyntheticStream()
    var classic = PlaylistChecker(lowLatency: false), low = PlaylistChecker(lowLatency: true)
    var cmaf = PlaylistChecker(lowLatency: true, segmentExtension: "m4s")
    var delta = PlaylistChecker(lowLatency: true)
    var frames = 0
    while !cursor.isAtEnd, frames < 3000 {
        let op = cursor.u8()
        var update: HLSPackager.Update
        switch op >> 5 {
        case 0, 1, 2, 3:
            let step: Int64 = op & 0x02 != 0 ? 3003 : 3600
            let jitter = Int64(Int8(bitPattern: cursor.u8())) * 1_000_000
            stream.dts += step
            stream.capture += MediaClock.nanoseconds(ticks: step) + jitter
            update = packager.ingest(stream.frame(keyframe: op & 1 != 0)[...], timestampNanoseconds: stream.capture)
        case 4:
            stream.dts += Int64(cursor.u16()) * 16
            stream.capture += Int64(cursor.u16()) * 1_000_000
            update = packager.ingest(stream.frame(keyframe: op & 1 != 0)[...], timestampNanoseconds: stream.capture)
        case 5:
            stream.dts = Int64(cursor.u32()) << 1
            stream.capture += Int64(cursor.u8()) * 1_000_000
            update = packager.ingest(stream.frame(keyframe: op & 1 != 0)[...], timestampNanoseconds: stream.capture)
        case 6:
            let lost = Int(cursor.u8()) + 1
            update = packager.gap(lostPackets: lost, timestampNanoseconds: stream.capture)
            stream.capture += Int64(cursor.u8()) * 20_000_000
        default:
            stream.dts += 3600
            stream.capture += 40_000_000
            let bytes = stream.frame(keyframe: op & 4 != 0, loseSecond: op & 1 != 0, discontinuity: op & 2 != 0)
            update = packager.ingest(bytes[...], timestampNanoseconds: stream.capture)
        }
        frames += 1
        _ = update
        classic.check(packager.window.playlist(.init(lowLatency: false)))
        low.check(packager.livePlaylist())
        if frames % 16 == 0 {
            checkCMAF(packager, &cmaf)
            delta.check(packager.livePlaylist(delta: true))
        }
    }
    _ = packager.finish()
    classic.check(packager.window.playlist(.init(lowLatency: false)))
    low.check(packager.livePlaylist())
    checkCMAF(packager, &cmaf)
    require(classic.ended && low.ended && cmaf.ended, "a finished playlist ends with EXT-X-ENDLIST")
}

/// The CMAF playlist's rules, and that what it names can be fetched.
func checkCMAF(_ packager: HLSPackager, _ checker: inout PlaylistChecker) {
    let text = packager.livePlaylist(.cmaf)
    checker.check(text)
    var mapped = false, gap = false
    for line in text.split(separator: "\n").map(String.init) {
        if let uri = line.after("#EXT-X-MAP:URI=\"") {
            let name = String(uri.dropLast())
            guard case .media = packager.resource(named: name) else { require(false, "header \(name) not served"); return }
            mapped = true
        } else if line == "#EXT-X-GAP" {
            gap = true
        } else if line.hasPrefix("seg") {
            require(mapped || gap, "segment \(line) before any EXT-X-MAP")
            gap = false
        }
    }
    for segment in packager.cmaf!.window.completeSegments where !segment.isGap {
        let name = packager.cmaf!.window.segmentName(segment.mediaSequence)
        guard case .media(let bytes) = packager.resource(named: name) else { require(false, "\(name) not served"); continue }
        let video = try? TrackExtraction.extract(track: 1, from: bytes.array[...])
        require(video.map { !$0.isEmpty } == true, "no video track cut out of \(name)")
    }
}

/// What one playlist said about one segment; the same segment must say the same every time.
struct SegmentFacts: Equatable {
    var duration: String
    var gap: Bool
    var discontinuitySequence: Int
}

/// Parses successive renders of one playlist and checks the RFC 8216bis rules in the header.
struct PlaylistChecker {
    let lowLatency: Bool
    var lastMediaSequence = Int.min
    var lastDiscontinuitySequence = Int.min
    var seen: [Int: SegmentFacts] = [:]
    var ended = false

    let segmentExtension: String

    init(lowLatency: Bool, segmentExtension: String = "ts") {
        self.lowLatency = lowLatency
        self.segmentExtension = segmentExtension
    }

    mutating func check(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        require(lines.first == "#EXTM3U", "a playlist starts with #EXTM3U")
        var target = -1, partTarget = -1.0, msn = -1, dsn = -1
        var index = 0, discontinuities = 0, gap = false, duration: String?
        var parts: [(sequence: Int, index: Int)] = []
        ended = false
        for line in lines.dropFirst() where !line.isEmpty {
            if let value = line.after("#EXT-X-TARGETDURATION:") {
                target = Int(value) ?? -1
            } else if let value = line.after("#EXT-X-PART-INF:PART-TARGET=") {
                partTarget = Double(value) ?? -1
            } else if let value = line.after("#EXT-X-MEDIA-SEQUENCE:") {
                msn = Int(value) ?? -1
            } else if let value = line.after("#EXT-X-DISCONTINUITY-SEQUENCE:") {
                dsn = Int(value) ?? -1
            } else if let value = line.after("#EXT-X-SKIP:SKIPPED-SEGMENTS=") {
                // A delta update: the skipped segments keep their numbers (§4.4.5.2).
                require(index == 0 && (Int(value) ?? 0) > 0, "EXT-X-SKIP \(value) not first")
                index += Int(value) ?? 0
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuities += 1
            } else if line == "#EXT-X-GAP" {
                gap = true
            } else if line == "#EXT-X-ENDLIST" {
                ended = true
            } else if let value = line.after("#EXTINF:") {
                let text = String(value.prefix { $0 != "," })
                let seconds = Double(text) ?? -1
                require(seconds >= 0 && Int(seconds.rounded()) <= target, "EXTINF \(text) > TARGETDURATION \(target)")
                duration = text
            } else if let value = line.after("#EXT-X-PART:DURATION=") {
                require(lowLatency, "EXT-X-PART in a classic playlist")
                let seconds = Double(value.prefix { $0 != "," }) ?? -1
                require(seconds >= 0 && seconds <= partTarget, "part \(value) > PART-TARGET \(partTarget)")
                let name = value.split(separator: "\"").dropFirst().first.map(String.init) ?? ""
                guard let part = parsePart(name) else { require(false, "part URI \(name)"); continue }
                if let last = parts.last, last.sequence == part.sequence {
                    require(part.index == last.index + 1, "parts of \(part.sequence) not consecutive: \(last.index) then \(part.index)")
                } else {
                    require(part.index == 0, "first listed part of \(part.sequence) is \(part.index)")
                }
                parts.append(part)
            } else if !line.hasPrefix("#") {
                require(msn >= 0 && target > 0 && dsn >= 0, "segment before the header tags")
                let sequence = msn + index
                require(line == "seg\(sequence).\(segmentExtension)", "URI \(line) at MEDIA-SEQUENCE \(msn) + \(index)")
                let facts = SegmentFacts(duration: duration ?? "?", gap: gap, discontinuitySequence: dsn + discontinuities)
                require(duration != nil, "segment \(sequence) without EXTINF")
                if let before = seen[sequence] {
                    require(before == facts, "segment \(sequence) changed: \(before) then \(facts)")
                }
                seen[sequence] = facts
                index += 1
                gap = false
                duration = nil
            }
        }
        require(target > 0 && msn >= 0 && dsn >= 0, "missing header tags")
        require(!lowLatency || partTarget > 0, "LL-HLS playlist without PART-TARGET")
        require(msn >= lastMediaSequence, "MEDIA-SEQUENCE went back: \(lastMediaSequence) then \(msn)")
        require(dsn >= lastDiscontinuitySequence, "DISCONTINUITY-SEQUENCE went back: \(lastDiscontinuitySequence) then \(dsn)")
        lastMediaSequence = msn
        lastDiscontinuitySequence = dsn
        if seen.count > 4096 { seen = seen.filter { $0.key >= msn } }
    }

    func parsePart(_ name: String) -> (sequence: Int, index: Int)? {
        guard name.hasPrefix("seg"), name.hasSuffix("." + segmentExtension) else { return nil }
        let numbers = name.dropFirst(3).dropLast(segmentExtension.count + 1).split(separator: ".")
        guard numbers.count == 2, let sequence = Int(numbers[0]), let index = Int(numbers[1]) else { return nil }
        return (sequence, index)
    }
}

extension String {
    func after(_ prefix: String) -> Substring? { hasPrefix(prefix) ? dropFirst(prefix.count) : nil }
}
