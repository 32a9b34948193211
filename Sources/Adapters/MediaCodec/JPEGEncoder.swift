import CGSAVCodec

/// Encodes decoded pictures as baseline JPEG with libavcodec's MJPEG encoder (thumbnails).
///
/// JPEG samples are full range, so video-range (16...235) YUV is expanded to 0...255 first; no
/// scaling happens here. Accepts 8-bit planar YUV 4:2:0, 4:2:2 and 4:4:4.
public enum JPEGEncoder {
    /// Returns the JPEG bytes of `frame`. `qscale` is MJPEG's quantiser: 2 (best) ... 31 (smallest).
    public static func encode(_ frame: VideoFrame, qscale: Int = 4) throws -> [UInt8] {
        let target = try check(frame, qscale: qscale)
        return try encodePrepared(try fullRangeCopy(of: frame, format: target), qscale: qscale)
    }

    /// Like `encode(_:qscale:)`, but expands `frame`'s samples to full range in its own buffer
    /// (made writable first, a copy only if the buffer is shared) instead of in a new picture:
    /// one picture less at once (1.4 MB at 720p) for a caller done with the frame (thumbnails).
    /// `frame` is left full range.
    public static func encode(convertingInPlace frame: VideoFrame, qscale: Int = 4) throws -> [UInt8] {
        let target = try check(frame, qscale: qscale)
        try convertInPlace(frame, format: target)
        return try encodePrepared(frame, qscale: qscale)
    }

    /// Validates `qscale` and returns the plain YUV format `frame` is encoded in.
    private static func check(_ frame: VideoFrame, qscale: Int) throws -> AVPixelFormat {
        guard (2...31).contains(qscale) else {
            throw MediaCodecError(operation: "JPEGEncoder.encode", code: AVErrorCode.einval,
                                  detail: "qscale \(qscale) outside 2...31")
        }
        guard let target = fullRangeFormat(for: frame.pixelFormat.av) else {
            throw MediaCodecError(operation: "JPEGEncoder.encode", code: AVErrorCode.enosys,
                                  detail: "pixel format \(frame.pixelFormat) needs a conversion this encoder does not do")
        }
        return target
    }

    /// Encodes `frame`, already full range in a plain YUV format, as one JPEG.
    private static func encodePrepared(_ frame: VideoFrame, qscale: Int) throws -> [UInt8] {
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else {
            throw MediaCodecError(operation: "avcodec_find_encoder(mjpeg)", code: AVErrorCode.encoderNotFound)
        }
        var context = avcodec_alloc_context3(encoder)
        defer { avcodec_free_context(&context) }
        guard let ctx = context else {
            throw MediaCodecError(operation: "avcodec_alloc_context3(mjpeg)", code: AVErrorCode.enomem)
        }
        ctx.pointee.width = Int32(frame.width)
        ctx.pointee.height = Int32(frame.height)
        ctx.pointee.pix_fmt = frame.pixelFormat.av
        ctx.pointee.color_range = AVCOL_RANGE_JPEG
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        ctx.pointee.thread_count = 1
        gs_codec_set_qscale(ctx, frame.frame, Int32(qscale))
        let opened = avcodec_open2(ctx, encoder, nil)
        guard opened >= 0 else { throw MediaCodecError(operation: "avcodec_open2(mjpeg encoder)", code: opened) }

        let sent = avcodec_send_frame(ctx, frame.frame)
        guard sent >= 0 else { throw MediaCodecError(operation: "avcodec_send_frame(mjpeg)", code: sent) }
        _ = avcodec_send_frame(ctx, nil)  // end of stream: the one packet must come out now
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet else { throw MediaCodecError(operation: "av_packet_alloc", code: AVErrorCode.enomem) }
        let received = avcodec_receive_packet(ctx, packet)
        guard received >= 0, let data = packet.pointee.data else {
            throw MediaCodecError(operation: "avcodec_receive_packet(mjpeg)",
                                  code: received < 0 ? received : AVErrorCode.invalidData)
        }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }

    /// The plain YUV format with the same subsampling (the encoder is told full range separately).
    static func fullRangeFormat(for format: AVPixelFormat) -> AVPixelFormat? {
        switch format {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P: AV_PIX_FMT_YUV420P
        case AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P: AV_PIX_FMT_YUV422P
        case AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P: AV_PIX_FMT_YUV444P
        default: nil
        }
    }

    /// Luma 16...235 and chroma 16...240 stretched to 0...255 (ITU-R BT.601/709 quantisation).
    static let expandLuma: [UInt8] = (0..<256).map { v in
        UInt8(clamping: Int(((Double(v) - 16) * 255 / 219).rounded()))
    }
    static let expandChroma: [UInt8] = (0..<256).map { v in
        UInt8(clamping: Int(((Double(v) - 128) * 255 / 224 + 128).rounded()))
    }

    /// Expands `frame`'s samples to full range in its own buffer and relabels it `format` (the
    /// same layout) as a full-range keyframe.
    static func convertInPlace(_ frame: VideoFrame, format: AVPixelFormat) throws {
        let raw = frame.frame
        let writable = av_frame_make_writable(raw)
        guard writable >= 0 else { throw MediaCodecError(operation: "av_frame_make_writable", code: writable) }
        if !frame.isFullRange {
            for plane in 0..<3 {
                guard let (bytesPerRow, rows) = frame.planeGeometry(plane), let base = gs_frame_plane(raw, Int32(plane)) else {
                    throw MediaCodecError(operation: "JPEGEncoder.encode", code: AVErrorCode.invalidData,
                                          detail: "plane \(plane) missing")
                }
                let stride = Int(gs_frame_linesize(raw, Int32(plane)))
                let table = plane == 0 ? expandLuma : expandChroma
                for row in 0..<rows {
                    let line = base + row * stride
                    for x in 0..<bytesPerRow { line[x] = table[Int(line[x])] }
                }
            }
        }
        raw.pointee.format = format.rawValue
        raw.pointee.color_range = AVCOL_RANGE_JPEG
        raw.pointee.pict_type = AV_PICTURE_TYPE_I
        gs_frame_set_key(raw)
    }

    /// A new frame in `format` holding `frame`'s samples, expanded to full range if needed.
    static func fullRangeCopy(of frame: VideoFrame, format: AVPixelFormat) throws -> VideoFrame {
        guard let raw = av_frame_alloc() else { throw MediaCodecError(operation: "av_frame_alloc", code: AVErrorCode.enomem) }
        let copy = VideoFrame(taking: raw)
        raw.pointee.width = Int32(frame.width)
        raw.pointee.height = Int32(frame.height)
        raw.pointee.format = format.rawValue
        raw.pointee.color_range = AVCOL_RANGE_JPEG
        raw.pointee.pict_type = AV_PICTURE_TYPE_I
        gs_frame_set_key(raw)
        let allocated = av_frame_get_buffer(raw, 0)
        guard allocated >= 0 else { throw MediaCodecError(operation: "av_frame_get_buffer", code: allocated) }
        let expand = !frame.isFullRange
        for plane in 0..<3 {
            guard let (bytesPerRow, rows) = frame.planeGeometry(plane),
                  let source = gs_frame_plane(frame.frame, Int32(plane)),
                  let destination = gs_frame_plane(raw, Int32(plane)) else {
                throw MediaCodecError(operation: "JPEGEncoder.encode", code: AVErrorCode.invalidData,
                                      detail: "plane \(plane) missing")
            }
            let sourceStride = Int(gs_frame_linesize(frame.frame, Int32(plane)))
            let destinationStride = Int(gs_frame_linesize(raw, Int32(plane)))
            let table = plane == 0 ? expandLuma : expandChroma
            for row in 0..<rows {
                let from = source + row * sourceStride, to = destination + row * destinationStride
                if expand {
                    for x in 0..<bytesPerRow { to[x] = table[Int(from[x])] }
                } else {
                    to.update(from: from, count: bytesPerRow)
                }
            }
        }
        return copy
    }
}
