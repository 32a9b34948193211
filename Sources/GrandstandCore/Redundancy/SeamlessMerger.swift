/// SMPTE ST 2022-7 seamless protection for one channel: the same RTP stream arriving on two
/// paths (two groups, ports or sources) merged by sequence number. The first copy of each packet
/// goes on, later copies are dropped and counted per path; a path that stays silent while the
/// other delivers is reported down, and up again when it returns. A path whose stream is not the
/// same (another SSRC, or a copy whose bytes differ) is refused with the reason. Plain-UDP TS has
/// no sequence number to merge on: it fails over to the other path after a silence instead (not
/// hitless). Sans-I/O: arrival times are passed in.
public struct SeamlessMerger: Sendable {
    public enum Path: Int, Sendable, CaseIterable, CustomStringConvertible {
        case primary = 0, secondary = 1
        public var description: String { self == .primary ? "primary" : "secondary" }
        var other: Path { self == .primary ? .secondary : .primary }
    }

    /// One path's counters (`stats.json` keys `path_<name>_…`, docs/ingest.md).
    public struct PathCounters: Sendable, Equatable {
        public var packets = 0
        /// Copies of packets the other path delivered first.
        public var duplicates = 0
        /// Packets dropped because this path's stream is refused (`refusal`), or, on plain UDP,
        /// because the other path is the active one.
        public var dropped = 0
        public var downEvents = 0
        public var isDown = false
        public var lastArrival: Int64? = nil
    }

    /// What to do with one arriving packet.
    public enum Decision: Sendable, Equatable { case forward, duplicate, dropped }

    /// A change to report (journald, stats, health).
    public enum Event: Sendable, Equatable {
        case pathDown(Path, silentNanoseconds: Int64)
        case pathUp(Path)
        /// The path carries another stream: its packets are dropped until the channel is reset.
        case refused(Path, reason: String)
        /// Plain UDP: the output switched to `Path` after the other went silent (not hitless).
        case failover(to: Path)
    }

    public struct Configuration: Sendable, Equatable {
        /// A path silent this long while the other delivers is down (and, on plain UDP, the
        /// output fails over). Default 200 ms.
        public var silenceNanoseconds: Int64 = 200_000_000
        /// Sequence numbers remembered for duplicate detection (a power of two): the paths may
        /// differ by at most this many packets (ST 2022-7's path differential, in packets).
        public static let window = 8192

        public init(silenceNanoseconds: Int64 = 200_000_000) { self.silenceNanoseconds = silenceNanoseconds }
    }

    public let configuration: Configuration
    public let rtp: Bool
    public private(set) var counters: [PathCounters] = [PathCounters(), PathCounters()]
    public private(set) var refusal: (path: Path, reason: String)? = nil
    /// Plain UDP: the path whose datagrams go on.
    public private(set) var active: Path = .primary
    private var ssrc: UInt32? = nil
    private var ssrcPath: Path = .primary
    /// Consecutive packets of the other path with another SSRC, and copies whose bytes differed.
    private var mismatchRun = 0
    private var differing = 0
    static let mismatchLimit = 16
    static let differingLimit = 3
    /// Extended sequence number + 1 held in each slot (0: empty), and a fingerprint of its bytes.
    private var seen = [Int64](repeating: 0, count: Configuration.window)
    private var fingerprints = [UInt32](repeating: 0, count: Configuration.window)
    private var highest: Int64? = nil
    private var events: [Event] = []

    public init(configuration: Configuration = Configuration(), rtp: Bool) {
        self.configuration = configuration
        self.rtp = rtp
    }

    /// Events since the last call, oldest first.
    public mutating func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    public var hasEvents: Bool { !events.isEmpty }

    /// An RTP packet (already parsed) from `path`: forward the first copy, drop the rest.
    public mutating func receive(ssrc packetSSRC: UInt32, sequence: UInt16, payload: ArraySlice<UInt8>,
                                 from path: Path, at time: Int64) -> Decision {
        arrived(path, at: time)
        if let refusal, refusal.path == path { counters[path.rawValue].dropped += 1; return .dropped }
        if let ssrc, ssrc != packetSSRC {
            if path == ssrcPath {
                // The path that set the stream restarted it (a new SSRC): the other follows.
                self.ssrc = packetSSRC
                highest = nil
            } else {
                // Both paths carry identical RTP headers (ST 2022-7): a path that keeps another
                // SSRC carries another stream. A short run is a restart in flight; a long one is
                // refused, and the path that set the stream keeps the channel.
                mismatchRun += 1
                counters[path.rawValue].dropped += 1
                if mismatchRun >= Self.mismatchLimit {
                    refuse(path, "SSRC \(hex(packetSSRC)) differs from the \(ssrcPath) path's \(hex(ssrc))")
                }
                return .dropped
            }
        }
        if path != ssrcPath { mismatchRun = 0 }
        if ssrc == nil { ssrc = packetSSRC; ssrcPath = path }
        let ext = extend(sequence)
        let slot = Int(ext & Int64(Configuration.window - 1))
        let print = Self.fingerprint(payload)
        if seen[slot] == ext + 1 {
            counters[path.rawValue].duplicates += 1
            if fingerprints[slot] != print {
                differing += 1
                if differing >= Self.differingLimit {
                    refuse(path, "packet \(sequence) differs from the \(path.other) path's copy (same sequence number, other bytes)")
                }
            }
            return .duplicate
        }
        seen[slot] = ext + 1
        fingerprints[slot] = print
        if ext > highest ?? Int64.min { highest = ext }
        return .forward
    }

    /// A plain-UDP datagram from `path`: it goes on when its path is the active one.
    public mutating func receiveDatagram(from path: Path, at time: Int64) -> Decision {
        arrived(path, at: time)
        if path != active, let last = counters[active.rawValue].lastArrival, time - last >= configuration.silenceNanoseconds {
            active = path
            events.append(.failover(to: path))
        }
        guard path == active else { counters[path.rawValue].dropped += 1; return .dropped }
        return .forward
    }

    /// Time passes: a path silent for `silenceNanoseconds` while the other delivers (heard within
    /// that time) is down. When both are silent the sender stopped: no path is blamed.
    public mutating func tick(now: Int64) {
        for path in Path.allCases {
            let counter = counters[path.rawValue]
            guard !counter.isDown, let last = counter.lastArrival, now - last >= configuration.silenceNanoseconds,
                  let other = counters[path.other.rawValue].lastArrival, now - other < configuration.silenceNanoseconds
            else { continue }
            counters[path.rawValue].isDown = true
            counters[path.rawValue].downEvents += 1
            events.append(.pathDown(path, silentNanoseconds: now - last))
        }
    }

    /// Paths currently down (the `paths_down_current` level).
    public var pathsDown: Int { counters.filter(\.isDown).count }

    private mutating func arrived(_ path: Path, at time: Int64) {
        counters[path.rawValue].packets += 1
        if counters[path.rawValue].isDown {
            counters[path.rawValue].isDown = false
            events.append(.pathUp(path))
        }
        counters[path.rawValue].lastArrival = max(counters[path.rawValue].lastArrival ?? time, time)
        tick(now: time)
    }

    private mutating func refuse(_ path: Path, _ reason: String) {
        guard refusal == nil else { return }
        refusal = (path, reason)
        events.append(.refused(path, reason: reason))
    }

    /// The extended number of `sequence`: the one closest to the highest seen (RFC 3550 A.1).
    private func extend(_ sequence: UInt16) -> Int64 {
        guard let highest else { return Int64(sequence) }
        let delta = Int64(Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest)))
        return highest + delta
    }

    /// FNV-1a over the length and the first and last 32 bytes: a copy that differs in what a
    /// sender changes between streams (TS headers, PES starts, stuffing) differs here.
    static func fingerprint(_ payload: ArraySlice<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261 ^ UInt32(truncatingIfNeeded: payload.count)
        func mix(_ bytes: ArraySlice<UInt8>) { for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 } }
        mix(payload.prefix(32))
        if payload.count > 32 { mix(payload.suffix(min(32, payload.count - 32))) }
        return hash
    }

    private func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}

extension SeamlessMerger.Event {
    /// `down`, `up`, `refused` or `failover`, and the path it concerns.
    public var name: String {
        switch self {
        case .pathDown: "down"
        case .pathUp: "up"
        case .refused: "refused"
        case .failover: "failover"
        }
    }

    public var path: SeamlessMerger.Path {
        switch self {
        case .pathDown(let path, _), .pathUp(let path), .refused(let path, _), .failover(let path): path
        }
    }

    /// One line for a log or the replay's events.jsonl.
    public var text: String {
        switch self {
        case .pathDown(let path, let silent): "\(path) path down (silent \(silent / 1_000_000) ms while the other delivers)"
        case .pathUp(let path): "\(path) path up"
        case .refused(let path, let reason): "\(path) path refused: \(reason)"
        case .failover(let path): "failed over to the \(path) path (plain UDP: not hitless)"
        }
    }
}
