import CGSAVCodec

/// The coding type of a picture as libavcodec's parser or decoder reports it.
public enum PictureType: Sendable, Equatable {
    case i, p, b, s, si, sp, bi, unknown

    /// From the C `int`/`enum AVPictureType` value (anything unexpected is `.unknown`).
    init(rawValue: Int) {
        switch rawValue {
        case Int(AV_PICTURE_TYPE_I.rawValue): self = .i
        case Int(AV_PICTURE_TYPE_P.rawValue): self = .p
        case Int(AV_PICTURE_TYPE_B.rawValue): self = .b
        case Int(AV_PICTURE_TYPE_S.rawValue): self = .s
        case Int(AV_PICTURE_TYPE_SI.rawValue): self = .si
        case Int(AV_PICTURE_TYPE_SP.rawValue): self = .sp
        case Int(AV_PICTURE_TYPE_BI.rawValue): self = .bi
        default: self = .unknown
        }
    }
}

/// One coded picture (with the parameter sets and SEI in front of it) cut from an Annex-B stream.
public struct AccessUnit: Sendable, Equatable {
    /// The access unit's bytes, start codes included, exactly as they appeared in the stream.
    public let data: [UInt8]
    /// The parser saw an IDR/IRAP picture or a recovery point: decoding can start here.
    public let isKeyframe: Bool
    public let pictureType: PictureType
    /// Coded picture size from the active parameter sets (nil until the parser has seen them).
    public let width: Int?
    public let height: Int?

    public init(data: [UInt8], isKeyframe: Bool, pictureType: PictureType, width: Int?, height: Int?) {
        self.data = data
        self.isKeyframe = isKeyframe
        self.pictureType = pictureType
        self.width = width
        self.height = height
    }
}

/// Splits an H.264/HEVC Annex-B byte stream into access units with libavcodec's parser.
///
/// Feed bytes in pieces of any size with `parse(_:)`; an access unit is reported once the start of
/// the next one has been seen, so call `flush()` at the end of the stream for the last one. The
/// result does not depend on how the stream was split. After `flush()` (or `reset()`, which drops
/// a partial access unit, e.g. on a discontinuity) the parser starts afresh. Owns its parser and
/// codec context (freed in deinit); not Sendable (one stream, one owner).
public final class ElementaryStreamParser {
    public let codec: VideoCodec
    private var parser: UnsafeMutablePointer<AVCodecParserContext>
    private var context: UnsafeMutablePointer<AVCodecContext>?

    public init(codec: VideoCodec) throws {
        let parser = try Self.makeParser(codec)
        guard let context = avcodec_alloc_context3(nil) else {
            av_parser_close(parser)
            throw MediaCodecError(operation: "avcodec_alloc_context3", code: AVErrorCode.enomem)
        }
        self.codec = codec
        self.parser = parser
        self.context = context
    }

    deinit {
        av_parser_close(parser)
        avcodec_free_context(&context)
    }

    /// Feeds the next piece of the stream and returns the access units it completed.
    public func parse(_ bytes: some Collection<UInt8>) throws -> [AccessUnit] {
        if let units = try bytes.withContiguousStorageIfAvailable({ try parse(buffer: $0) }) { return units }
        return try Array(bytes).withUnsafeBufferPointer { try parse(buffer: $0) }
    }

    private func parse(buffer input: UnsafeBufferPointer<UInt8>) throws -> [AccessUnit] {
        guard let base = input.baseAddress, !input.isEmpty else { return [] }
        var units: [AccessUnit] = []
        var offset = 0
        while offset < input.count {
            let (used, unit) = try step(base + offset, Int32(clamping: input.count - offset))
            if let unit { units.append(unit) }
            if used == 0 && unit == nil {
                throw MediaCodecError(operation: "av_parser_parse2(\(codec.rawValue))", code: AVErrorCode.invalidData,
                                      detail: "parser consumed nothing at offset \(offset)")
            }
            offset += used
        }
        return units
    }

    /// Signals the end of the stream and returns the last, buffered access unit (if any).
    public func flush() throws -> [AccessUnit] {
        var units: [AccessUnit] = []
        // One call normally empties the parser; bound the loop in case a parser keeps data back.
        for _ in 0..<4 {
            guard let unit = try step(nil, 0).unit else { break }
            units.append(unit)
        }
        // libavcodec's parsers take no input after end of stream: start a new one.
        try reset()
        return units
    }

    /// Drops any partly received access unit and starts parsing afresh.
    public func reset() throws {
        let fresh = try Self.makeParser(codec)
        av_parser_close(parser)
        parser = fresh
    }

    private static func makeParser(_ codec: VideoCodec) throws -> UnsafeMutablePointer<AVCodecParserContext> {
        guard let parser = av_parser_init(Int32(bitPattern: codec.codecID.rawValue)) else {
            throw MediaCodecError(operation: "av_parser_init(\(codec.rawValue))", code: AVErrorCode.enosys,
                                  detail: "this libavcodec has no \(codec.rawValue) parser")
        }
        return parser
    }

    /// One av_parser_parse2 call: bytes consumed and the access unit it completed, if any.
    private func step(_ bytes: UnsafePointer<UInt8>?, _ count: Int32) throws -> (used: Int, unit: AccessUnit?) {
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: Int32 = 0
        let nopts = gs_av_nopts_value()
        let used = av_parser_parse2(parser, context, &output, &outputSize, bytes, count, nopts, nopts, 0)
        if used < 0 {
            throw MediaCodecError(operation: "av_parser_parse2(\(codec.rawValue))", code: used)
        }
        guard outputSize > 0, let output else { return (Int(used), nil) }
        let p = parser.pointee
        let unit = AccessUnit(
            data: Array(UnsafeBufferPointer(start: output, count: Int(outputSize))),
            isKeyframe: p.key_frame == 1,
            pictureType: PictureType(rawValue: Int(p.pict_type)),
            width: p.width > 0 ? Int(p.width) : nil,
            height: p.height > 0 ? Int(p.height) : nil)
        return (Int(used), unit)
    }
}
