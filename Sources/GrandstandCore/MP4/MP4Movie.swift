/// A progressive MP4 (`ftyp`, `moov`, `mdat`, in either order: ISO/IEC 14496-12 §4–§8, as
/// ffmpeg writes it with or without `+faststart`) read for playback: its first H.264 and first
/// AAC track with their sample tables. Only the top-level headers and the `moov` box are read;
/// media stays in the file and is read sample by sample (`MP4HLS`).
public struct MP4Movie: Sendable, Equatable {
    public struct Track: Sendable, Equatable {
        public var id: UInt32
        public var codec: MP4Codec
        /// Ticks per second of the track's times (`mdhd`).
        public var timescale: Int64
        /// Media time shown first (the first edit's `media_time` in `elst`, 14496-12 §8.6.6), in `timescale`.
        public var startOffset: Int64
        public var samples: [MP4Sample]
    }

    public var video: Track?
    public var audio: Track?

    /// The largest `moov` read into memory (a multi-hour file's tables are a few MB).
    public static let maxMovieBoxBytes = 64 << 20

    public init(_ source: some MP4ByteSource) throws(MP4Error) {
        var offset: Int64 = 0
        var moov: [UInt8]?
        while offset < source.size {
            let headBytes = Int(min(16, source.size - offset))
            guard let head = source.read(at: offset, count: headBytes) else { throw .truncated("cannot read the box at \(offset)") }
            let box = try MP4Box.header(head, at: offset, end: source.size)
            if offset == 0, !["ftyp", "moov", "mdat", "free", "skip", "wide", "styp"].contains(box.type) {
                throw .unsupported("not an MP4: the file starts with \(box.type)")
            }
            if box.type == "moov" {
                let count = box.payload.upperBound - box.payload.lowerBound
                guard count <= Int64(Self.maxMovieBoxBytes) else { throw .unsupported("a moov of \(count) bytes (at most \(Self.maxMovieBoxBytes))") }
                guard let bytes = source.read(at: box.payload.lowerBound, count: Int(count)) else { throw .truncated("cannot read moov") }
                moov = bytes
            }
            if box.type == "moof" { throw .unsupported("a fragmented MP4 (moof): only progressive files are played") }
            offset = box.payload.upperBound
        }
        guard let moov else { throw .malformed("no moov box (the file is not a finished MP4)") }
        for child in try MP4Box.children(moov, 0..<moov.count) where child.type == "trak" {
            guard let track = try Self.track(moov, child.payload, fileSize: source.size) else { continue }
            switch track.codec {
            case .avc: if video == nil { video = track }
            case .aac: if audio == nil { audio = track }
            }
        }
        guard video != nil || audio != nil else { throw .unsupported("no H.264 or AAC track") }
    }

    /// A `trak` of a video or sound handler; nil for other handlers (text, timecode, hint).
    private static func track(_ bytes: [UInt8], _ trak: Range<Int>, fileSize: Int64) throws(MP4Error) -> Track? {
        let mdia = try MP4Box.child("mdia", bytes, trak, in: "trak")
        var handler = MP4Cursor(bytes, try MP4Box.child("hdlr", bytes, mdia, in: "mdia"), box: "hdlr")
        try handler.skip(8)
        let kind = MP4Box.typeName(try handler.take(4)[...])
        guard kind == "vide" || kind == "soun" else { return nil }
        var header = MP4Cursor(bytes, try MP4Box.child("tkhd", bytes, trak, in: "trak"), box: "tkhd")
        let tkhdVersion = try header.u8()
        try header.skip(3 + (tkhdVersion == 1 ? 16 : 8))
        let id = try header.u32()
        var media = MP4Cursor(bytes, try MP4Box.child("mdhd", bytes, mdia, in: "mdia"), box: "mdhd")
        let mdhdVersion = try media.u8()
        try media.skip(3 + (mdhdVersion == 1 ? 16 : 8))
        let timescale = Int64(try media.u32())
        guard timescale > 0 else { throw .malformed("track \(id): mdhd timescale 0") }
        let stbl = try MP4Box.child("stbl", bytes, try MP4Box.child("minf", bytes, mdia, in: "mdia"), in: "minf")
        let codec: MP4Codec
        do throws(MP4Error) {
            codec = try MP4Codec.parse(stsd: bytes, try MP4Box.child("stsd", bytes, stbl, in: "stbl"))
        } catch {
            // Another codec's track (HEVC, Opus…) is skipped; the movie fails only when none is left.
            if case .unsupported = error { return nil }
            throw error
        }
        if case .avc = codec, kind != "vide" { throw .malformed("track \(id): H.264 in a \(kind) track") }
        if case .aac = codec, kind != "soun" { throw .malformed("track \(id): AAC in a \(kind) track") }
        let samples = try MP4SampleTable.samples(bytes, stbl: stbl, fileSize: fileSize)
        guard !samples.isEmpty else { return nil }
        return Track(id: id, codec: codec, timescale: timescale, startOffset: try startOffset(bytes, trak), samples: samples)
    }

    /// The media time of the first edit that shows media (`elst`, §8.6.6); 0 without one.
    private static func startOffset(_ bytes: [UInt8], _ trak: Range<Int>) throws(MP4Error) -> Int64 {
        guard let edts = try MP4Box.children(bytes, trak).first(where: { $0.type == "edts" }),
              let elst = try MP4Box.children(bytes, edts.payload).first(where: { $0.type == "elst" }) else { return 0 }
        var cursor = MP4Cursor(bytes, elst.payload, box: "elst")
        let version = try cursor.u8()
        try cursor.skip(3)
        for _ in 0..<(try cursor.table(try cursor.u32(), entryBytes: version == 1 ? 20 : 12)) {
            try cursor.skip(version == 1 ? 8 : 4)   // segment_duration
            let mediaTime = version == 1 ? Int64(bitPattern: try cursor.u64()) : Int64(Int32(bitPattern: try cursor.u32()))
            try cursor.skip(4)   // media_rate
            if mediaTime >= 0 { return mediaTime }   // -1: an empty edit (a delay), skipped
        }
        return 0
    }
}
