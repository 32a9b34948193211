/// Blocking playlist reload (RFC 8216bis §6.2.5.2) as a pure decision on the current window.
public enum ReloadDecision: Sendable, Equatable {
    /// Send the playlist now.
    case respondNow
    /// Hold the request; decide again whenever the packager publishes a part or segment, and give
    /// up after `MediaWindow.maximumBlockNanoseconds` (then 503, per §6.2.5.2).
    case wait
    /// 400 Bad Request: the request is malformed or too far ahead of the live edge.
    case badRequest(String)
}

extension MediaWindow {
    /// How long a blocked request may wait: three target durations (§6.2.5.2) unless configured.
    public var maximumBlockNanoseconds: Int64 {
        configuration.blockTimeoutNanoseconds ?? 3 * Int64(segmenter.targetDurationSeconds) * 1_000_000_000
    }

    /// The Advance Part Limit: 3 / PART-TARGET when that is under one second, else 3 (§6.2.5.2).
    public var advancePartLimit: Int {
        segmenter.partTargetTicks < MediaClock.ticksPerSecond
            ? Int(3 * MediaClock.ticksPerSecond / segmenter.partTargetTicks) : 3
    }

    /// Decision for `_HLS_msn` / `_HLS_part` (nil when absent; parse them with
    /// `ReloadRequest.parse(query:)`).
    public func reloadDecision(msn: Int?, part: Int?) -> ReloadDecision {
        guard let msn else {
            return part == nil ? .respondNow : .badRequest("_HLS_part without _HLS_msn")
        }
        if msn < 0 || (part ?? 0) < 0 { return .badRequest("negative _HLS_msn or _HLS_part") }
        if ended { return .respondNow }
        let lastSegment = completeSegments.last?.mediaSequence ?? ((openSegment?.mediaSequence ?? nextMediaSequence) - 1)
        if msn > lastSegment + 2 {
            return .badRequest("_HLS_msn \(msn) is more than two segments beyond the last (\(lastSegment))")
        }
        guard let part else { return msn <= lastSegment ? .respondNow : .wait }
        guard let last = lastPart else { return msn <= lastSegment ? .respondNow : .wait }
        if (last.sequence, last.index) >= (msn, part) { return .respondNow }
        // A later segment exists (e.g. the requested part index was past the end of segment msn).
        if lastSegment > msn { return .respondNow }
        let perSegment = Int((segmenter.targetDurationTicks + segmenter.partTargetTicks - 1) / segmenter.partTargetTicks)
        let ahead = (msn - last.sequence) * perSegment + part - last.index
        if ahead > advancePartLimit {
            return .badRequest("_HLS_part \(part) of \(msn) is \(ahead) parts beyond the last (\(last.sequence).\(last.index))")
        }
        return .wait
    }
}

/// The delivery directives of a playlist request's query string (§6.2.5).
public struct ReloadRequest: Sendable, Equatable {
    public var msn: Int?
    public var part: Int?
    /// `_HLS_skip=YES` (or `v2`): a Playlist Delta Update (RFC 8216bis §6.2.5.1), the segments
    /// older than the Skip Boundary replaced by EXT-X-SKIP. We have no EXT-X-DATERANGE, so v2
    /// is the same as YES.
    public var skip: String?

    public var wantsDelta: Bool { skip == "YES" || skip == "v2" }

    public init(msn: Int? = nil, part: Int? = nil, skip: String? = nil) {
        self.msn = msn
        self.part = part
        self.skip = skip
    }

    public enum ParseError: Error, Equatable { case badValue(String) }

    /// Parses `a=b&c=d` (without the `?`). Unknown keys are ignored; bad numbers are an error (→ 400).
    public static func parse(query: Substring) -> Result<ReloadRequest, ParseError> {
        var request = ReloadRequest()
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = kv[0], value = kv.count > 1 ? kv[1] : ""
            switch key {
            case "_HLS_msn", "_HLS_part":
                guard value.count <= 10, !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(value) else {
                    return .failure(.badValue(String(key)))
                }
                if key == "_HLS_msn" { request.msn = n } else { request.part = n }
            case "_HLS_skip":
                guard value == "YES" || value == "v2" else { return .failure(.badValue(String(key))) }
                request.skip = String(value)
            default:
                continue
            }
        }
        return .success(request)
    }
}
