import GrandstandCore
import MediaCodec

/// Replay's HLS tree: `hls/ID/index.m3u8` (a VOD playlist ending with EXT-X-ENDLIST, classic
/// HLS) and every segment `segN.ts` of each video channel, packaged exactly as live (same
/// segmenter, libavcodec keyframes) with a window large enough to keep the whole capture.
final class ReplayHLSOutput {
    let directory: String
    private var packagers: [String: HLSPackager] = [:]
    private var order: [String] = []

    init(directory: String) {
        self.directory = directory
        MediaCodecLibrary.quietLogging()
    }

    /// A video channel was listed: start (or keep) its packager.
    func add(_ id: String) {
        guard packagers[id] == nil else { return }
        packagers[id] = HLSPackager(window: WindowConfiguration(window: 1e9, byteCap: .max, retiredSegments: 0),
                                    keyframeDetector: ParserKeyframeDetector())
        order.append(id)
    }

    func ingest(_ id: String, _ packets: ArraySlice<UInt8>, at time: Int64) {
        _ = packagers[id]?.ingest(packets, timestampNanoseconds: time)
    }

    func gap(_ id: String, lostPackets: Int, at time: Int64) {
        _ = packagers[id]?.gap(lostPackets: lostPackets, timestampNanoseconds: time)
    }

    /// Ends every channel and writes its playlist and segments.
    func finish() throws(ReplayError) {
        guard !order.isEmpty else { return }
        try OutputFile.makeDirectory(directory + "/hls")
        for id in order {
            guard var packager = packagers[id] else { continue }
            _ = packager.finish()
            let folder = "\(directory)/hls/\(id)"
            try OutputFile.makeDirectory(folder)
            for segment in packager.window.segments {
                let file = try OutputFile(path: "\(folder)/seg\(segment.mediaSequence).ts")
                try file.write(segment.bytes[...])
                try file.close()
            }
            let playlist = try OutputFile(path: folder + "/index.m3u8")
            try playlist.write(packager.window.playlist(MediaWindow.PlaylistOptions(lowLatency: false)))
            try playlist.close()
        }
    }
}
