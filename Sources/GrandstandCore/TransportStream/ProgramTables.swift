/// The program association table (ISO/IEC 13818-1 §2.4.4.3, table_id 0x00).
public struct ProgramAssociationTable: Sendable, Equatable {
    public var transportStreamID: UInt16
    public var version: UInt8
    /// program_number → program_map_PID (program 0, the network PID, is left out).
    public var programs: [UInt16: UInt16]

    /// The PMT PID of the lowest-numbered program: Grandstand packages one program per channel.
    public var firstProgram: (number: UInt16, pmtPID: UInt16)? {
        programs.keys.min().flatMap { n in programs[n].map { (n, $0) } }
    }

    /// Parses a whole, CRC-checked section; nil when it is not a current PAT section.
    public static func parse(section s: [UInt8]) -> ProgramAssociationTable? {
        guard s.count >= 12, s[0] == 0x00, s[5] & 0x01 == 1 else { return nil }
        var table = ProgramAssociationTable(transportStreamID: UInt16(s[3]) << 8 | UInt16(s[4]),
                                            version: (s[5] >> 1) & 0x1F, programs: [:])
        var i = 8
        while i + 4 <= s.count - 4 {
            let number = UInt16(s[i]) << 8 | UInt16(s[i + 1])
            let pid = UInt16(s[i + 2] & 0x1F) << 8 | UInt16(s[i + 3])
            if number != 0 { table.programs[number] = pid }
            i += 4
        }
        return table
    }
}

/// One elementary stream of a program.
public struct ElementaryStreamInfo: Sendable, Equatable {
    public var pid: UInt16
    public var streamType: StreamType
    /// The raw ES_info descriptors (tag, length, bytes…).
    public var descriptors: [UInt8]

    public init(pid: UInt16, streamType: StreamType, descriptors: [UInt8] = []) {
        self.pid = pid
        self.streamType = streamType
        self.descriptors = descriptors
    }

    /// ISO 639 language code from descriptor 0x0A, if present.
    public var language: String? {
        var i = 0
        while i + 2 <= descriptors.count {
            let tag = descriptors[i], length = Int(descriptors[i + 1])
            if tag == 0x0A, length >= 3, i + 5 <= descriptors.count {
                return String(decoding: descriptors[(i + 2)..<(i + 5)], as: UTF8.self)
            }
            i += 2 + length
        }
        return nil
    }
}

/// The program map table of one program (ISO/IEC 13818-1 §2.4.4.8, table_id 0x02).
public struct ProgramMapTable: Sendable, Equatable {
    public var programNumber: UInt16
    public var version: UInt8
    public var pcrPID: UInt16
    public var streams: [ElementaryStreamInfo]

    /// The first video stream, else the first audio stream: the one segments are timed and cut on.
    public var timingStream: ElementaryStreamInfo? {
        streams.first { $0.streamType.kind == .video } ?? streams.first { $0.streamType.kind == .audio }
    }

    /// The same program apart from the version number (a version bump that changed nothing).
    public func hasSameStreams(as other: ProgramMapTable) -> Bool {
        pcrPID == other.pcrPID && streams == other.streams
    }

    public static func parse(section s: [UInt8]) -> ProgramMapTable? {
        guard s.count >= 16, s[0] == 0x02, s[5] & 0x01 == 1 else { return nil }
        let end = s.count - 4
        var table = ProgramMapTable(programNumber: UInt16(s[3]) << 8 | UInt16(s[4]), version: (s[5] >> 1) & 0x1F,
                                    pcrPID: UInt16(s[8] & 0x1F) << 8 | UInt16(s[9]), streams: [])
        let programInfoLength = Int(s[10] & 0x0F) << 8 | Int(s[11])
        var i = 12 + programInfoLength
        while i + 5 <= end {
            let type = StreamType(rawValue: s[i])
            let pid = UInt16(s[i + 1] & 0x1F) << 8 | UInt16(s[i + 2])
            let infoLength = Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4])
            guard i + 5 + infoLength <= end else { return nil }
            table.streams.append(ElementaryStreamInfo(pid: pid, streamType: type,
                                                      descriptors: Array(s[(i + 5)..<(i + 5 + infoLength)])))
            i += 5 + infoLength
        }
        return table
    }
}
