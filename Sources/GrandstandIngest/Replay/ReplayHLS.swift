import GrandstandCore
import MediaCodec

/// Replay's HLS tree: `hls/ID/index.m3u8` (a VOD playlist ending with EXT-X-ENDLIST, classic
/// HLS) and every segment `segN.ts` of each video channel, packaged exactly as live (same
/// segmenter, libavcodec keyframes) with a window large enough to keep the whole capture.
/// With `hls.videoHealth` each channel is also decoded inline (no worker, nothing skipped, so
/// the counters are deterministic) and its health counters go into stats.json.
final class ReplayHLSOutput {
    let directory: String
    let hls: GatewayConfig.HLS
    private var packagers: [String: HLSPackager] = [:]
    private var health: [String: VideoHealthMonitor] = [:]
    private var order: [String] = []

    init(directory: String, hls: GatewayConfig.HLS = GatewayConfig.HLS()) {
        self.directory = directory
        self.hls = hls
        MediaCodecLibrary.quietLogging()
    }

    /// A video channel was listed: start (or keep) its packager.
    func add(_ id: String) {
        guard packagers[id] == nil else { return }
        packagers[id] = HLSPackager(segmenter: hls.segmenter, window: WindowConfiguration(window: 1e9, byteCap: .max, retiredSegments: 0),
                                    keyframeDetector: ParserKeyframeDetector())
        if hls.videoHealth { health[id] = VideoHealthMonitor() }
        order.append(id)
    }

    func ingest(_ id: String, _ packets: ArraySlice<UInt8>, at time: Int64) {
        _ = packagers[id]?.ingest(packets, timestampNanoseconds: time)
        health[id]?.ingest(packets)
    }

    func gap(_ id: String, lostPackets: Int, at time: Int64) {
        _ = packagers[id]?.gap(lostPackets: lostPackets, timestampNanoseconds: time)
        health[id]?.gap()
    }

    /// Finishes the health checks and adds their counters to `stats` (per channel, and summed
    /// into the totals).
    func addHealth(to stats: inout IngestStats) {
        guard hls.videoHealth else { return }
        var totals: [String: Int64] = [:]
        var keys: [String] = []
        for id in order {
            guard let monitor = health[id] else { continue }
            monitor.finish()
            for (key, value) in monitor.counters.statistics {
                stats.channels[id, default: [:]][key] = .number(Double(value))
                if totals[key] == nil { keys.append(key) }
                totals[key, default: 0] += value
            }
        }
        for key in keys { stats.total[key] = .number(Double(totals[key] ?? 0)) }
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
                try file.write(segment.bytes.array[...])
                try file.close()
            }
            let playlist = try OutputFile(path: folder + "/index.m3u8")
            try playlist.write(packager.window.playlist(MediaWindow.PlaylistOptions(lowLatency: false)))
            try playlist.close()
        }
    }
}
