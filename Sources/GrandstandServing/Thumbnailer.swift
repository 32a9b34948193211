import GrandstandCore
import MediaCodec

/// Thumbnails: the first keyframe of a channel's newest complete segment (segments start on a
/// keyframe), decoded with libavcodec and encoded as JPEG. Runs on the serving thread.
struct Thumbnailer {
    private(set) var failures = 0

    func refresh(_ channel: VideoChannel) {
        guard let (sequence, bytes) = channel.segmentForThumbnail() else { return }
        channel.setThumbnail(try? Self.jpeg(fromSegment: bytes), sequence: sequence)
    }

    /// Demuxes the TS, takes the video stream's bytes and decodes its first keyframe.
    static func jpeg(fromSegment bytes: [UInt8]) throws -> [UInt8] {
        var demuxer = TSDemuxer(selection: .all)
        var stream: [UInt8] = []
        var codec: VideoCodec?
        var events = demuxer.feed(bytes[...], timestampNanoseconds: 0)
        events += demuxer.flush()
        for case .pes(let pes) in events {
            switch pes.streamType {
            case .h264 where codec != .hevc: codec = .h264; stream += pes.payload
            case .hevc where codec != .h264: codec = .hevc; stream += pes.payload
            default: continue
            }
        }
        guard let codec else {
            throw ThumbnailError()
        }
        // The decoder is gone by now; the picture is expanded to full range in place (no copy).
        let frame = try VideoDecoder.firstKeyframe(in: stream, codec: codec)
        return try JPEGEncoder.encode(convertingInPlace: frame)
    }
}

/// The segment held no H.264/HEVC stream to take a picture from.
struct ThumbnailError: Error, CustomStringConvertible {
    var description: String { "thumbnail: no H.264/HEVC stream in the segment" }
}
