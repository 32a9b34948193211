/// One sample of a track as its sample table places it (ISO/IEC 14496-12 §8.6–§8.7).
public struct MP4Sample: Sendable, Equatable {
    /// Where its bytes are in the file, and how many.
    public var offset: Int64
    public var size: Int32
    /// Decode time in the track's timescale (`stts`), and the composition offset (`ctts`).
    public var dts: Int64
    public var compositionOffset: Int32
    /// A sync sample (`stss`; every sample when there is none).
    public var sync: Bool
}

/// Reads a sample table (`stbl`) into samples, every count and offset checked against the table
/// that holds it and the file's size.
enum MP4SampleTable {
    /// The most samples a track may have (≈ 11 h of 25 fps video plus its audio; 32 bytes each in memory).
    static let maxSamples = 2_000_000
    /// The largest sample read (a 4K keyframe is a few MB).
    static let maxSampleBytes = 32 << 20

    static func samples(_ bytes: [UInt8], stbl: Range<Int>, fileSize: Int64) throws(MP4Error) -> [MP4Sample] {
        var boxes: [String: Range<Int>] = [:]
        for child in try MP4Box.children(bytes, stbl) where boxes[child.type] == nil { boxes[child.type] = child.payload }
        guard let stsz = boxes["stsz"] else {
            throw boxes["stz2"] != nil ? .unsupported("compact sample sizes (stz2)") : .malformed("stbl has no stsz")
        }
        guard let stts = boxes["stts"] else { throw .malformed("stbl has no stts") }
        guard let stsc = boxes["stsc"] else { throw .malformed("stbl has no stsc") }
        // §8.7.2.3 sample sizes: one for all, or a table.
        var cursor = MP4Cursor(bytes, stsz, box: "stsz")
        try cursor.skip(4)
        let constant = try cursor.u32()
        let count = Int(try cursor.u32())
        guard count <= maxSamples else { throw .unsupported("\(count) samples in one track (at most \(maxSamples))") }
        var sizes: [UInt32] = []
        if constant == 0 {
            _ = try cursor.table(UInt32(count), entryBytes: 4)
            sizes.reserveCapacity(count)
            for _ in 0..<count { sizes.append(try cursor.u32()) }
        }
        // §8.6.1.2 decoding times.
        var samples: [MP4Sample] = []
        samples.reserveCapacity(count)
        cursor = MP4Cursor(bytes, stts, box: "stts")
        try cursor.skip(4)
        var dts: Int64 = 0
        for _ in 0..<(try cursor.table(try cursor.u32(), entryBytes: 8)) {
            let run = Int(try cursor.u32()), delta = Int64(try cursor.u32())
            guard run <= count - samples.count else { throw .malformed("stts covers more than the \(count) samples of stsz") }
            for _ in 0..<run {
                let size = constant == 0 ? sizes[samples.count] : constant
                guard size <= UInt32(maxSampleBytes) else { throw .unsupported("a sample of \(size) bytes (at most \(maxSampleBytes))") }
                samples.append(MP4Sample(offset: 0, size: Int32(size), dts: dts, compositionOffset: 0, sync: true))
                dts += delta
            }
        }
        guard samples.count == count else { throw .malformed("stts covers \(samples.count) of the \(count) samples of stsz") }
        try compositionOffsets(bytes, boxes["ctts"], &samples)
        try syncSamples(bytes, boxes["stss"], &samples)
        try offsets(bytes, stsc: stsc, chunks: boxes["stco"], chunks64: boxes["co64"], &samples, fileSize: fileSize)
        return samples
    }

    /// §8.6.1.3: composition offsets (signed in version 1; read as signed in both, as players do).
    private static func compositionOffsets(_ bytes: [UInt8], _ range: Range<Int>?, _ samples: inout [MP4Sample]) throws(MP4Error) {
        guard let range else { return }
        var cursor = MP4Cursor(bytes, range, box: "ctts")
        try cursor.skip(4)
        var index = 0
        for _ in 0..<(try cursor.table(try cursor.u32(), entryBytes: 8)) {
            let run = Int(try cursor.u32()), offset = Int32(bitPattern: try cursor.u32())
            guard run <= samples.count - index else { throw .malformed("ctts covers more than the \(samples.count) samples") }
            for i in index..<index + run { samples[i].compositionOffset = offset }
            index += run
        }
    }

    /// §8.6.2: sync samples by number (1-based, ascending); without `stss` every sample is one.
    private static func syncSamples(_ bytes: [UInt8], _ range: Range<Int>?, _ samples: inout [MP4Sample]) throws(MP4Error) {
        guard let range else { return }
        var cursor = MP4Cursor(bytes, range, box: "stss")
        try cursor.skip(4)
        for i in samples.indices { samples[i].sync = false }
        for _ in 0..<(try cursor.table(try cursor.u32(), entryBytes: 4)) {
            let number = Int(try cursor.u32())
            guard number >= 1, number <= samples.count else { throw .malformed("stss names sample \(number) of \(samples.count)") }
            samples[number - 1].sync = true
        }
    }

    /// §8.7.4 samples to chunks and §8.7.5 chunk offsets: each sample's file offset.
    private static func offsets(_ bytes: [UInt8], stsc: Range<Int>, chunks: Range<Int>?, chunks64: Range<Int>?,
                                _ samples: inout [MP4Sample], fileSize: Int64) throws(MP4Error) {
        var chunkOffsets: [Int64] = []
        if let range = chunks ?? chunks64 {
            var cursor = MP4Cursor(bytes, range, box: chunks != nil ? "stco" : "co64")
            try cursor.skip(4)
            let count = try cursor.table(try cursor.u32(), entryBytes: chunks != nil ? 4 : 8)
            chunkOffsets.reserveCapacity(count)
            for _ in 0..<count {
                let offset = chunks != nil ? UInt64(try cursor.u32()) : try cursor.u64()
                guard offset <= UInt64(fileSize) else { throw .malformed("a chunk at \(offset), past the file's \(fileSize) bytes") }
                chunkOffsets.append(Int64(offset))
            }
        } else {
            throw .malformed("stbl has no stco or co64")
        }
        var cursor = MP4Cursor(bytes, stsc, box: "stsc")
        try cursor.skip(4)
        var runs: [(first: Int, perChunk: Int)] = []
        for _ in 0..<(try cursor.table(try cursor.u32(), entryBytes: 12)) {
            let first = Int(try cursor.u32()), perChunk = Int(try cursor.u32())
            try cursor.skip(4)   // sample_description_index
            guard first >= 1, first > (runs.last?.first ?? 0) else { throw .malformed("stsc first_chunk \(first) out of order") }
            runs.append((first, perChunk))
        }
        var index = 0
        for (run, entry) in runs.enumerated() where index < samples.count {
            let last = run + 1 < runs.count ? runs[run + 1].first - 1 : chunkOffsets.count
            guard entry.first <= chunkOffsets.count || entry.perChunk == 0 else { throw .malformed("stsc names chunk \(entry.first) of \(chunkOffsets.count)") }
            var chunk = entry.first
            while chunk <= min(last, chunkOffsets.count), index < samples.count {
                var offset = chunkOffsets[chunk - 1]
                for _ in 0..<min(entry.perChunk, samples.count - index) {
                    samples[index].offset = offset
                    offset += Int64(samples[index].size)
                    guard offset <= fileSize else { throw .truncated("sample \(index + 1) ends at \(offset), past the file's \(fileSize) bytes") }
                    index += 1
                }
                chunk += 1
            }
        }
        guard index == samples.count else { throw .malformed("the chunks hold \(index) of the \(samples.count) samples") }
    }
}
