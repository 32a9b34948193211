import Testing
@testable import GrandstandCore

/// An independent reading of ISO BMFF (ISO/IEC 14496-12) for the tests: walks boxes by their
/// size fields and checks each box we write against the fields the spec requires, so a writer
/// bug shows as a named box and field rather than as a decoder's complaint.
struct ISOBox {
    var type: String
    /// The box's content (after size and type).
    var body: ArraySlice<UInt8>
    var offset: Int
    var size: Int

    /// The boxes in `bytes` in order; a size that overruns or a size under 8 is an issue.
    static func parse(_ bytes: ArraySlice<UInt8>, sourceLocation: SourceLocation = #_sourceLocation) -> [ISOBox] {
        var boxes: [ISOBox] = []
        var at = bytes.startIndex
        while at < bytes.endIndex {
            guard bytes.endIndex - at >= 8 else {
                Issue.record("\(bytes.endIndex - at) trailing bytes at \(at)", sourceLocation: sourceLocation)
                break
            }
            let size = Int(be32(bytes, at))
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            guard size >= 8, at + size <= bytes.endIndex else {
                Issue.record("box \(type) at \(at): size \(size) overruns \(bytes.endIndex - at) bytes", sourceLocation: sourceLocation)
                break
            }
            boxes.append(ISOBox(type: type, body: bytes[(at + 8)..<(at + size)], offset: at, size: size))
            at += size
        }
        return boxes
    }

    var children: [ISOBox] { Self.parse(body) }
    /// A full box's version and flags, and its content after them.
    var version: UInt8 { body[body.startIndex] }
    var flags: UInt32 { UInt32(body[body.startIndex + 1]) << 16 | UInt32(body[body.startIndex + 2]) << 8 | UInt32(body[body.startIndex + 3]) }
    var fullBody: ArraySlice<UInt8> { body.dropFirst(4) }

    func child(_ type: String, sourceLocation: SourceLocation = #_sourceLocation) -> ISOBox? {
        let found = children.filter { $0.type == type }
        if found.count != 1 { Issue.record("\(self.type) holds \(found.count) \(type) boxes, expected 1", sourceLocation: sourceLocation) }
        return found.first
    }

    func u32(_ at: Int) -> UInt32 { Self.be32(fullBody, fullBody.startIndex + at) }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) << 32 | UInt64(u32(at + 4)) }
    static func be32(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}

/// What the checker learned from a header: each track's id, handler and timescale.
struct CheckedTrack: Equatable {
    var id: UInt32
    var handler: String
    var timescale: UInt32
    var sampleEntry: String
}

enum CMAFChecker {
    /// Checks an init segment (ISO/IEC 23000-19 §7.3.1 and the boxes of 14496-12 it names).
    static func checkHeader(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [CheckedTrack] {
        let top = ISOBox.parse(bytes[...])
        #expect(top.map(\.type) == ["ftyp", "moov"], sourceLocation: sourceLocation)
        guard top.count == 2 else { return [] }
        let ftyp = top[0].body
        let compatible = stride(from: ftyp.startIndex + 8, to: ftyp.endIndex, by: 4).map { String(decoding: ftyp[$0..<($0 + 4)], as: UTF8.self) }
        #expect(compatible.contains("cmfc") && compatible.contains("iso6"), "ftyp brands \(compatible)", sourceLocation: sourceLocation)
        let moov = top[1]
        guard let mvhd = moov.child("mvhd", sourceLocation: sourceLocation), moov.child("mvex", sourceLocation: sourceLocation) != nil else { return [] }
        #expect(mvhd.version == 0 && mvhd.u32(8) > 0, "mvhd timescale", sourceLocation: sourceLocation)
        var tracks: [CheckedTrack] = []
        for trak in moov.children where trak.type == "trak" {
            guard let tkhd = trak.child("tkhd"), let mdia = trak.child("mdia"), let mdhd = mdia.child("mdhd"),
                  let hdlr = mdia.child("hdlr"), let minf = mdia.child("minf"), let stbl = minf.child("stbl"),
                  let stsd = stbl.child("stsd"), minf.child("dinf")?.child("dref") != nil else { continue }
            #expect(tkhd.flags & 0x1 == 1, "tkhd track_enabled", sourceLocation: sourceLocation)
            let id = tkhd.u32(8)
            let handler = String(decoding: hdlr.fullBody.dropFirst(4).prefix(4), as: UTF8.self)
            let timescale = mdhd.u32(8)
            #expect(id > 0 && timescale > 0, "track id \(id), timescale \(timescale)", sourceLocation: sourceLocation)
            #expect(minf.children.contains { $0.type == (handler == "vide" ? "vmhd" : "smhd") }, "media header for \(handler)", sourceLocation: sourceLocation)
            // A fragmented file's sample tables are empty (§8.8.1).
            for table in ["stts", "stsc", "stco"] { #expect(stbl.child(table)?.u32(0) == 0, "\(table) entries", sourceLocation: sourceLocation) }
            #expect(stbl.child("stsz")?.u32(4) == 0, "stsz sample_count", sourceLocation: sourceLocation)
            #expect(stsd.u32(0) == 1, "stsd entry_count", sourceLocation: sourceLocation)
            let entries = ISOBox.parse(stsd.fullBody.dropFirst(4))
            guard let entry = entries.first else { continue }
            checkSampleEntry(entry, handler: handler, sourceLocation: sourceLocation)
            tracks.append(CheckedTrack(id: id, handler: handler, timescale: timescale, sampleEntry: entry.type))
        }
        let trex = moov.child("mvex")?.children.filter { $0.type == "trex" } ?? []
        #expect(Set(trex.map { $0.u32(0) }) == Set(tracks.map(\.id)), "one trex per track", sourceLocation: sourceLocation)
        #expect(trex.allSatisfy { $0.u32(4) == 1 }, "trex default_sample_description_index", sourceLocation: sourceLocation)
        #expect(Set(tracks.map(\.id)).count == tracks.count && !tracks.isEmpty, sourceLocation: sourceLocation)
        return tracks
    }

    static func checkSampleEntry(_ entry: ISOBox, handler: String, sourceLocation: SourceLocation) {
        switch entry.type {
        case "avc1", "hvc1":
            #expect(handler == "vide", sourceLocation: sourceLocation)
            let body = entry.body
            let width = UInt16(body[body.startIndex + 24]) << 8 | UInt16(body[body.startIndex + 25])
            let height = UInt16(body[body.startIndex + 26]) << 8 | UInt16(body[body.startIndex + 27])
            #expect(width > 0 && height > 0, "\(entry.type) size", sourceLocation: sourceLocation)
            let config = ISOBox.parse(body.dropFirst(78))
            let record = config.first { $0.type == (entry.type == "avc1" ? "avcC" : "hvcC") }?.body
            guard let record else { Issue.record("\(entry.type) without its configuration box", sourceLocation: sourceLocation); return }
            #expect(record.first == 1, "configurationVersion", sourceLocation: sourceLocation)
            if entry.type == "avc1" {
                #expect(record[record.startIndex + 4] & 0x03 == 3, "lengthSizeMinusOne", sourceLocation: sourceLocation)
                #expect(record[record.startIndex + 5] & 0x1F >= 1, "numOfSequenceParameterSets", sourceLocation: sourceLocation)
            } else {
                #expect(record[record.startIndex + 21] & 0x03 == 3, "lengthSizeMinusOne", sourceLocation: sourceLocation)
                #expect(record[record.startIndex + 22] == 3, "VPS, SPS and PPS arrays", sourceLocation: sourceLocation)
            }
        case "mp4a":
            #expect(handler == "soun", sourceLocation: sourceLocation)
            let esds = ISOBox.parse(entry.body.dropFirst(28)).first
            #expect(esds?.type == "esds" && esds?.fullBody.first == 0x03, "mp4a esds ES_Descriptor", sourceLocation: sourceLocation)
        default:
            Issue.record("unexpected sample entry \(entry.type)", sourceLocation: sourceLocation)
        }
    }

    /// Decode-time bookkeeping across chunks: where each track's next sample should start.
    struct Timeline {
        var next: [UInt32: UInt64] = [:]
        var lastSequence: UInt32 = 0
        /// Tracks whose decode time jumped forward (a gap), with the jumps in their timescale.
        var jumps: [UInt32: [UInt64]] = [:]
    }

    /// Checks a part or segment: (moof, mdat) pairs (CMAF chunks, 23000-19 §7.3.2.3), each `traf`
    /// for a header track, data offsets and sizes that tile the mdat exactly, increasing
    /// sequence numbers, decode times that never go back, H.264/HEVC samples made of whole
    /// length-prefixed NAL units. Returns the sample count per track.
    @discardableResult
    static func checkChunks(_ bytes: [UInt8], tracks: [CheckedTrack], timeline: inout Timeline, independent: Bool = false,
                            sourceLocation: SourceLocation = #_sourceLocation) -> [UInt32: Int] {
        let boxes = ISOBox.parse(bytes[...])
        var counts: [UInt32: Int] = [:]
        #expect(!boxes.isEmpty && boxes.count % 2 == 0, "\(boxes.map(\.type))", sourceLocation: sourceLocation)
        for pair in stride(from: 0, to: boxes.count - 1, by: 2) {
            let moof = boxes[pair], mdat = boxes[pair + 1]
            #expect(moof.type == "moof" && mdat.type == "mdat", sourceLocation: sourceLocation)
            guard let sequence = moof.child("mfhd")?.u32(0) else { continue }
            #expect(sequence > timeline.lastSequence, "mfhd sequence \(sequence) after \(timeline.lastSequence)", sourceLocation: sourceLocation)
            timeline.lastSequence = sequence
            var covered: [Range<Int>] = []
            for traf in moof.children where traf.type == "traf" {
                guard let tfhd = traf.child("tfhd"), let tfdt = traf.child("tfdt"), let trun = traf.child("trun") else { continue }
                let id = tfhd.u32(0)
                guard let track = tracks.first(where: { $0.id == id }) else { Issue.record("traf for unknown track \(id)", sourceLocation: sourceLocation); continue }
                #expect(tfhd.flags & 0x020000 != 0, "tfhd default-base-is-moof", sourceLocation: sourceLocation)
                #expect(tfdt.version == 1, "tfdt version", sourceLocation: sourceLocation)
                #expect(trun.flags & 0xF01 == 0xF01, "trun fields present", sourceLocation: sourceLocation)
                let decodeTime = tfdt.u64(0)
                if let expected = timeline.next[id] {
                    #expect(decodeTime >= expected, "track \(id) decode time \(decodeTime) goes back from \(expected)", sourceLocation: sourceLocation)
                    if decodeTime > expected { timeline.jumps[id, default: []].append(decodeTime - expected) }
                }
                let count = Int(trun.u32(0))
                let dataOffset = Int(Int32(bitPattern: trun.u32(4)))
                #expect(count > 0, "trun sample_count", sourceLocation: sourceLocation)
                var duration: UInt64 = 0, size = 0
                var at = moof.offset + dataOffset
                for i in 0..<count {
                    let sampleDuration = trun.u32(8 + 16 * i), sampleSize = Int(trun.u32(12 + 16 * i))
                    let sampleFlags = trun.u32(16 + 16 * i)
                    duration += UInt64(sampleDuration)
                    if track.handler == "vide" {
                        #expect(sampleDuration > 0, "video sample duration", sourceLocation: sourceLocation)
                        if i == 0 && independent && pair == 0 { #expect(sampleFlags == SampleFlags.sync, "independent part starts with a sync sample", sourceLocation: sourceLocation) }
                        checkNALLengths(bytes[at..<min(bytes.count, at + sampleSize)], sourceLocation: sourceLocation)
                    } else {
                        #expect(sampleDuration == 1024, "AAC frame duration", sourceLocation: sourceLocation)
                    }
                    at += sampleSize
                    size += sampleSize
                }
                covered.append((moof.offset + dataOffset)..<(moof.offset + dataOffset + size))
                timeline.next[id] = decodeTime + duration
                counts[id, default: 0] += count
            }
            // The tracks' data tiles the mdat's content exactly.
            let content = (mdat.offset + 8)..<(mdat.offset + mdat.size)
            let sorted = covered.sorted { $0.lowerBound < $1.lowerBound }
            #expect(sorted.first?.lowerBound == content.lowerBound && sorted.last?.upperBound == content.upperBound
                    && zip(sorted, sorted.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound },
                    "track data \(sorted) does not tile mdat \(content)", sourceLocation: sourceLocation)
        }
        return counts
    }

    /// A sample of 4-byte length-prefixed NAL units ends exactly at its size.
    static func checkNALLengths(_ sample: ArraySlice<UInt8>, sourceLocation: SourceLocation) {
        var at = sample.startIndex
        while at + 4 <= sample.endIndex {
            let length = Int(ISOBox.be32(sample, at))
            #expect(length > 0, "empty NAL unit", sourceLocation: sourceLocation)
            at += 4 + length
        }
        #expect(at == sample.endIndex, "NAL lengths overrun the sample by \(at - sample.endIndex)", sourceLocation: sourceLocation)
    }
}
