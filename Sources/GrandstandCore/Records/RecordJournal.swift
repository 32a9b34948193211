/// The segment journal of a running recording (`NAME.segments`): one line per segment appended
/// to `NAME.ts`, written only after the segment's bytes are on disk (fdatasync), so every line
/// names durable bytes: `OFFSET LENGTH DURATION DISCONTINUITY\n`, e.g. `0 216296 2.002 0`.
/// A crash can leave a torn last line; `parse` keeps the complete, contiguous lines before it.
public enum RecordJournal {
    public struct Entry: Sendable, Equatable {
        public var offset: Int
        public var length: Int
        public var durationSeconds: Double
        public var discontinuity: Bool

        public init(offset: Int, length: Int, durationSeconds: Double, discontinuity: Bool) {
            self.offset = offset
            self.length = length
            self.durationSeconds = durationSeconds
            self.discontinuity = discontinuity
        }

        public var end: Int { offset + length }
    }

    public static func line(_ entry: Entry) -> String {
        "\(entry.offset) \(entry.length) \(PlaylistFormat.seconds(MediaClock.ticks(seconds: entry.durationSeconds))) \(entry.discontinuity ? 1 : 0)\n"
    }

    /// The complete entries from the start, each continuing the one before (offset = previous
    /// end); reading stops at a torn or malformed line. `validBytes`: the journal's length up to
    /// the end of the last entry kept (the writer truncates a torn tail to it).
    public static func parse(_ bytes: [UInt8]) -> (entries: [Entry], validBytes: Int) {
        var entries: [Entry] = []
        var start = 0, valid = 0, expected = 0
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let fields = String(decoding: bytes[start..<newline], as: UTF8.self).split(separator: " ")
            guard fields.count == 4, let offset = Int(fields[0]), let length = Int(fields[1]), let seconds = Double(fields[2]),
                  offset == expected, length > 0, seconds > 0, seconds.isFinite, fields[3] == "0" || fields[3] == "1" else { break }
            entries.append(Entry(offset: offset, length: length, durationSeconds: seconds, discontinuity: fields[3] == "1"))
            expected = offset + length
            start = newline + 1
            valid = start
        }
        return (entries, valid)
    }
}

/// What is kept of a recording cut by a crash or power loss (docs/records.md "Crash safety"):
/// the journaled segments whose bytes are in the file, then — when the file goes on past them —
/// the rest as one more segment, its duration measured from the PCRs in it. The file is cut to
/// whole 188-byte TS packets so every player reads it.
public enum RecordRecovery {
    public struct Plan: Sendable, Equatable {
        /// Journaled segments wholly inside the kept bytes.
        public var entries: [RecordJournal.Entry]
        /// Bytes after the last kept entry up to the last whole packet: measure and keep them
        /// as a segment (`tailSegment`), or cut them off when they hold no measurable time.
        public var tail: Range<Int>?
        /// The file's length after recovery without the tail (a multiple of 188).
        public var keptBytes: Int

        public init(entries: [RecordJournal.Entry], tail: Range<Int>?, keptBytes: Int) {
            self.entries = entries
            self.tail = tail
            self.keptBytes = keptBytes
        }
    }

    public static let packetSize = 188

    public static func plan(entries: [RecordJournal.Entry], fileSize: Int) -> Plan {
        let whole = fileSize - fileSize % packetSize
        var kept: [RecordJournal.Entry] = []
        for entry in entries {
            guard entry.end <= whole, entry.offset % packetSize == 0, entry.length % packetSize == 0 else { break }
            kept.append(entry)
        }
        let end = kept.last?.end ?? 0
        return Plan(entries: kept, tail: end < whole ? end..<whole : nil, keptBytes: end)
    }

    /// The tail as a segment when its PCRs span some time; nil otherwise (then it is cut off).
    public static func tailSegment(_ bytes: ArraySlice<UInt8>, offset: Int) -> RecordJournal.Entry? {
        guard let seconds = TransportStreamTime.pcrSpanSeconds(bytes), seconds > 0 else { return nil }
        return RecordJournal.Entry(offset: offset, length: bytes.count, durationSeconds: seconds, discontinuity: false)
    }
}

/// Time measured in MPEG-TS bytes without decoding: the span of the program clock reference
/// (ISO/IEC 13818-1 §2.4.3.5) on the first PID that carries one, in seconds.
public enum TransportStreamTime {
    public static func pcrSpanSeconds(_ bytes: ArraySlice<UInt8>) -> Double? {
        var first: Int64?, last: Int64 = 0, span: Int64 = 0, pcrPID: Int?
        var index = bytes.startIndex
        while index + 188 <= bytes.endIndex {
            defer { index += 188 }
            guard bytes[index] == 0x47 else { return nil }
            let pid = (Int(bytes[index + 1] & 0x1F) << 8) | Int(bytes[index + 2])
            let control = (bytes[index + 3] >> 4) & 0x3
            guard control & 0x2 != 0, bytes[index + 4] >= 7, bytes[index + 5] & 0x10 != 0 else { continue }
            if let fixed = pcrPID, fixed != pid { continue }
            pcrPID = pid
            let b6 = Int64(bytes[index + 6]), b7 = Int64(bytes[index + 7]), b8 = Int64(bytes[index + 8])
            let b9 = Int64(bytes[index + 9]), b10 = Int64(bytes[index + 10])
            let base = (b6 << 25) | (b7 << 17) | (b8 << 9) | (b9 << 1) | (b10 >> 7)
            if first == nil {
                first = base
            } else {
                // 33-bit wrap; a jump backwards or of more than a minute is a discontinuity: not counted.
                let step = (base - last + (1 << 33)) % (1 << 33)
                if step < 60 * 90_000 { span += step }
            }
            last = base
        }
        guard first != nil else { return nil }
        return Double(span) / 90_000
    }
}
