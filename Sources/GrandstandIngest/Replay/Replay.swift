import Capture
import GrandstandCore

/// `grandstand replay`: a capture file through the same `IngestPipeline` as live, as fast as the
/// CPU allows, with time taken from the capture timestamps (`tick` whenever capture time crosses
/// a 50 ms boundary — FEC windows close on their 200 ms timeout as they do live — and once at the end). Writes into the output directory:
/// `channels.json`, `stats.json`, `events.jsonl`, `data/ID.jsonl`, `ts/ID.ts` (docs/ingest.md)
/// and `hls/ID/` (VOD playlist and segments, docs/hls.md).
/// Everything written depends only on the capture and the configuration.
public struct Replay {
    public struct Summary {
        public var frames = 0
        public var bytes = 0
        var firstTimestamp: Int64?
        var lastTimestamp: Int64?
        /// The BPF filter live capture would install for the channels known at the end
        /// (`CaptureFilter` over `IngestPipeline.endpoints`): what tools/bench reads with.
        public var captureFilter = ""
    }

    let capturePath: String
    let outputDirectory: String
    let configuration: IngestConfiguration
    /// A BPF filter installed before reading (what live capture would have let through), or nil.
    var filter: String? = nil
    /// The configuration's `hls` section: segment timing and the decode health check.
    var hls = GatewayConfig.HLS()

    public init(capturePath: String, outputDirectory: String, configuration: IngestConfiguration, filter: String? = nil,
                hls: GatewayConfig.HLS = GatewayConfig.HLS()) {
        self.capturePath = capturePath
        self.outputDirectory = outputDirectory
        self.configuration = configuration
        self.filter = filter
        self.hls = hls
    }

    public func run() throws -> Summary {
        let capture = try PacketCapture.open(file: capturePath)
        if let filter { try capture.setFilter(filter) }
        guard let link = LinkLayer(linkType: capture.linkType.rawValue) else {
            throw ReplayError("unsupported link type \(capture.linkType.name) in", capturePath, code: 0)
        }
        let output = try ReplayOutput(directory: outputDirectory, hls: hls)
        var pipeline = IngestPipeline(configuration: configuration)
        var summary = Summary()
        var nextTick: Int64? = nil
        // One frame buffer for the whole run: the pipeline's actions are written out before the
        // next frame is read, so the buffer is unshared again and is refilled without allocating.
        var frame: [UInt8] = []
        frame.reserveCapacity(65_536)
        var actions: [IngestAction] = []   // likewise reused
        while let packet = try capture.next(into: &frame) {
            let time = packet.timestampNanoseconds
            // The first packet, then every 50 ms of capture time: retire, close FEC windows.
            if nextTick.map({ time >= $0 }) ?? true {
                try output.handle(pipeline.tick(nowNanoseconds: time), at: time)
                nextTick = Self.nextBoundary(after: time, step: Self.tickNanoseconds)
            }
            summary.frames += 1
            summary.bytes += frame.count
            if summary.firstTimestamp == nil { summary.firstTimestamp = time }
            summary.lastTimestamp = time
            pipeline.ingest(frame: frame[...], link: link, timestampNanoseconds: time, into: &actions)
            try output.handle(actions, at: time)
            actions.removeAll(keepingCapacity: true)   // before the next read: frees `frame`
        }
        let end = summary.lastTimestamp ?? 0
        try output.handle(pipeline.tick(nowNanoseconds: end), at: end)
        try output.finish(channels: pipeline.channels, stats: pipeline.stats)
        summary.captureFilter = CaptureFilter(endpoints: pipeline.endpoints).expression
        return summary
    }

    /// The first whole second of capture time after `time`.
    /// Capture time between ticks (docs/fec.md asks for 10–50 ms).
    static let tickNanoseconds: Int64 = 50_000_000

    /// The first multiple of `step` after `time`.
    static func nextBoundary(after time: Int64, step: Int64) -> Int64 {
        var steps = time / step
        if time % step < 0 { steps -= 1 }
        return (steps + 1) * step
    }
}

/// The files of one replay run; TS and data files are opened when their channel is first
/// listed and stay open (a channel that returns under the same id appends).
final class ReplayOutput {
    let directory: String
    /// TS files by channel id, searched linearly: a handful of channels, one lookup per TS
    /// datagram, cheaper than hashing the id (docs/performance.md).
    private var transportStreams: [(id: String, file: OutputFile)] = []
    private var dataMessages: [String: OutputFile] = [:]
    private let events: OutputFile
    private let hls: ReplayHLSOutput
    /// File channels: received files land in `files/ID/PATH` (docs/files.md).
    private let files = FileChannels()

    public init(directory: String, hls: GatewayConfig.HLS = GatewayConfig.HLS()) throws(ReplayError) {
        self.directory = directory
        try OutputFile.makeDirectory(directory)
        try OutputFile.makeDirectory(directory + "/ts")
        try OutputFile.makeDirectory(directory + "/data")
        events = try OutputFile(path: directory + "/events.jsonl")
        self.hls = ReplayHLSOutput(directory: directory, hls: hls)
        files.sink = DirectoryFileSink(root: directory + "/files")
    }

    /// Writes what `actions` carry; `time` is the capture time they happened at.
    func handle(_ actions: [IngestAction], at time: Int64) throws(ReplayError) {
        for action in actions {
            switch action {
            case .channelsChanged(let changes):
                for change in changes { try record(change, at: time) }
            case .transportStream(let id, let packets, let time):
                try transportStreams.first(where: { $0.id == id })?.file.write(packets)
                hls.ingest(id, packets, at: time)
            case .gap(let id, let lost, let time):
                hls.gap(id, lostPackets: lost, at: time)
                try events.write(Self.line([("event", .string("gap")), ("id", .string(id)), ("lostPackets", .number(Double(lost)))],
                                           time: time))
            case .dataMessage(let id, let payload, let time):
                try dataMessages[id]?.write(Self.dataLine(payload, time: time)[...])
            case .fileDatagram(let id, let payload, let time):
                for note in files.receive(id, payload, at: time) { try events.write(Self.fileLine(note, id: id, time: time)) }
            case .path(let id, let event, let time):
                try events.write(Self.line([("event", .string("path")), ("id", .string(id)), ("change", .string(event.name)),
                                            ("path", .string(event.path.description)), ("text", .string(event.text))], time: time))
            }
        }
    }

    private func record(_ change: ChannelChange, at time: Int64) throws(ReplayError) {
        let channel = change.channel
        if case .added = change { files.apply([change]) }
        if case .added = change {
            switch channel.kind {
            case .video where !transportStreams.contains(where: { $0.id == channel.id }):
                transportStreams.append((channel.id, try OutputFile(path: "\(directory)/ts/\(channel.id).ts")))
                hls.add(channel.id)
            case .data where dataMessages[channel.id] == nil:
                dataMessages[channel.id] = try OutputFile(path: "\(directory)/data/\(channel.id).jsonl")
            default:
                break
            }
        }
        guard case .object(var members) = change.json else { return }
        members.append(("event", .string("channel")))
        members.append(("kind", .string(channel.kind.name)))
        try events.write(Self.line(members, time: time))
    }

    /// One JSON line: `members` plus `time` (RFC 3339) and `timestampNanoseconds`, keys sorted.
    /// The nanoseconds are written as an exact integer (a JSON number through Double would round).
    static func line(_ members: [(key: String, value: JSONValue)], time: Int64) -> String {
        var all = members.map { ($0.key, $0.value.encoded) }
        all.append(("time", JSONValue.quote(TextEncoding.rfc3339(nanoseconds: time))))
        all.append(("timestampNanoseconds", String(time)))
        all.sort { $0.0 < $1.0 }
        return "{" + all.map { JSONValue.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}\n"
    }

    /// A data message's JSON line, the same bytes as `line([("payload", base64)], time:)` but
    /// built directly: base64 and RFC 3339 text never need JSON escapes, and the keys are
    /// already in order (a data channel can carry a message per packet; docs/performance.md).
    static func dataLine(_ payload: ArraySlice<UInt8>, time: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((payload.count + 2) / 3 * 4 + 96)
        out.append(contentsOf: #"{"payload":""#.utf8)
        TextEncoding.appendBase64(payload, to: &out)
        out.append(contentsOf: #"","time":""#.utf8)
        out.append(contentsOf: TextEncoding.rfc3339(nanoseconds: time).utf8)
        out.append(contentsOf: #"","timestampNanoseconds":"#.utf8)
        out.append(contentsOf: String(time).utf8)
        out.append(contentsOf: "}\n".utf8)
        return out
    }

    func finish(channels: [Channel], stats: IngestStats) throws(ReplayError) {
        for (_, file) in transportStreams { try file.close() }
        for file in dataMessages.values { try file.close() }
        try events.close()
        try hls.finish()
        var stats = stats
        hls.addHealth(to: &stats)
        let channelsFile = try OutputFile(path: directory + "/channels.json")
        try channelsFile.write(JSONValue.array(channels.map(\.json)).encoded + "\n")
        try channelsFile.close()
        let statsFile = try OutputFile(path: directory + "/stats.json")
        try statsFile.write(stats.encoded)
        try statsFile.close()
    }
}
