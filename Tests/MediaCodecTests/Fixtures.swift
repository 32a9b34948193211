import Foundation

/// The video fixtures made by tools/fixtures/make-media-fixtures.sh, and the facts that follow from
/// its parameters (keep both in step).
enum MediaFixture: String, CaseIterable, CustomStringConvertible {
    case h264 = "testsrc-160x90-25fps-2s.h264"
    case hevc = "testsrc-160x90-25fps-2s.hevc"
    case transportStream = "testsrc-160x90-25fps-4s-h264.ts"

    static let width = 160, height = 90
    static let framesPerSecond = 25, gop = 25, bFrames = 2
    static let elementaryStreamSeconds = 2, transportStreamSeconds = 4

    /// 25 fps × 2 s.
    static let elementaryStreamFrames = framesPerSecond * elementaryStreamSeconds
    /// Decode-order indices of the IDR/IRAP pictures: every `gop` frames.
    static let keyframeIndices = Array(stride(from: 0, to: elementaryStreamFrames, by: gop))
    /// Per closed GOP of 25 with a fixed 2-B pattern: 1 I, then 8 × (P + 2 B).
    static let pFramesPerGOP = (gop - 1) / (bFrames + 1)
    static let bFramesPerGOP = pFramesPerGOP * bFrames

    var description: String { rawValue }

    var url: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/media").appendingPathComponent(rawValue)
    }

    func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }
}
