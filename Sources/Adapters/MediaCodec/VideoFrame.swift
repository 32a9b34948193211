import CGSAVCodec

/// A pixel format by libavutil's number and name (e.g. `yuv420p`).
public struct PixelFormat: Equatable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public var name: String { av_get_pix_fmt_name(AVPixelFormat(rawValue: rawValue)).map { String(cString: $0) } ?? "none" }
    public var description: String { name }

    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init?(name: String) {
        let format = av_get_pix_fmt(name)
        guard format != AV_PIX_FMT_NONE else { return nil }
        rawValue = format.rawValue
    }

    public static let yuv420p = PixelFormat(rawValue: AV_PIX_FMT_YUV420P.rawValue)
    public static let yuvj420p = PixelFormat(rawValue: AV_PIX_FMT_YUVJ420P.rawValue)

    var av: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }
}

/// One decoded picture. Owns its AVFrame (freed in deinit); not Sendable.
public final class VideoFrame {
    let frame: UnsafeMutablePointer<AVFrame>

    /// Takes ownership of `frame`.
    init(taking frame: UnsafeMutablePointer<AVFrame>) { self.frame = frame }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    public var width: Int { Int(frame.pointee.width) }
    public var height: Int { Int(frame.pointee.height) }
    public var pixelFormat: PixelFormat { PixelFormat(rawValue: frame.pointee.format) }
    public var isKeyframe: Bool { gs_frame_is_key(frame) != 0 }
    public var pictureType: PictureType { PictureType(rawValue: Int(frame.pointee.pict_type.rawValue)) }

    /// Samples use the full 0...255 range (JPEG style) rather than 16...235 (video style).
    public var isFullRange: Bool {
        let format = pixelFormat.av
        return frame.pointee.color_range == AVCOL_RANGE_JPEG
            || format == AV_PIX_FMT_YUVJ420P || format == AV_PIX_FMT_YUVJ422P || format == AV_PIX_FMT_YUVJ444P
    }

    /// Number of planes of the pixel format (3 for planar YUV).
    public var planeCount: Int { max(0, Int(av_pix_fmt_count_planes(pixelFormat.av))) }

    /// Bytes per row and rows of `plane` (chroma planes are subsampled), nil for a missing plane.
    public func planeGeometry(_ plane: Int) -> (bytesPerRow: Int, rows: Int)? {
        guard plane >= 0, plane < planeCount, let descriptor = av_pix_fmt_desc_get(pixelFormat.av) else { return nil }
        let bytesPerRow = Int(av_image_get_linesize(pixelFormat.av, frame.pointee.width, Int32(plane)))
        guard bytesPerRow > 0 else { return nil }
        let shift = (plane == 1 || plane == 2) ? Int(descriptor.pointee.log2_chroma_h) : 0
        let rows = (height + (1 << shift) - 1) >> shift
        return (bytesPerRow, rows)
    }

    /// The samples of `plane`, rows packed without FFmpeg's line padding (nil for a missing plane).
    public func planeBytes(_ plane: Int) -> [UInt8]? {
        guard let (bytesPerRow, rows) = planeGeometry(plane), let base = gs_frame_plane(frame, Int32(plane)) else {
            return nil
        }
        let stride = Int(gs_frame_linesize(frame, Int32(plane)))
        var bytes = [UInt8]()
        bytes.reserveCapacity(bytesPerRow * rows)
        for row in 0..<rows {
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + row * stride, count: bytesPerRow))
        }
        return bytes
    }
}
