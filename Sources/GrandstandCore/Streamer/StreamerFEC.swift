/// The FEC `grandstand send` adds to a video channel (`--fec SPEC`, or `"fec"` in `--config`):
/// SMPTE 2022-1 column/row XOR FEC on port+2/port+4, or Reed-Solomon protection windows on a
/// repair port. Parsed here so the command and the tests share one grammar (docs/streamer.md).
public enum StreamerFEC: Sendable, Equatable {
    /// L columns × D rows; `rowFEC` false sends column FEC only (1D).
    case smpte2022_1(columns: Int, rows: Int, rowFEC: Bool)
    /// k sources + m repairs per window, repairs to `repairPort`. k + m > 255 is accepted on
    /// purpose (to exercise receivers' `window_error`): such windows carry only a marker repair.
    case reedSolomon(k: Int, m: Int, repairPort: UInt16)

    public static let defaultColumns = 5, defaultRows = 4, defaultK = 20, defaultM = 4

    /// Parses `smpte2022-1[:L=5,D=4[,row=no]]` or `reed-solomon[:k=20,m=4[,port=P]]` (`rs` and
    /// `2022-1` are short forms). The Reed-Solomon repair port defaults to the media port + 2.
    public static func parse(_ text: String, mediaPort: UInt16) -> Result<StreamerFEC, StreamerError> {
        let scheme: Substring, rest: Substring
        if let colon = text.firstIndex(of: ":") {
            scheme = text[..<colon]
            rest = text[text.index(after: colon)...]
        } else {
            scheme = text[...]
            rest = ""
        }
        var fields: [String: String] = [:]
        for item in rest.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, fields[String(parts[0])] == nil else {
                return .failure(StreamerError("--fec \"\(text)\": \"\(item)\" is not a new key=value"))
            }
            fields[String(parts[0])] = String(parts[1])
        }
        func number(_ key: String, _ fallback: Int) -> Int? {
            guard let value = fields[key] else { return fallback }
            return Int(value)
        }
        func unknown(_ known: Set<String>) -> String? { fields.keys.sorted().first { !known.contains($0) } }
        switch scheme {
        case "smpte2022-1", "2022-1":
            if let key = unknown(["L", "D", "row"]) {
                return .failure(StreamerError("--fec \"\(text)\": unknown key \(key) (smpte2022-1 takes L, D, row=yes|no)"))
            }
            guard let columns = number("L", defaultColumns), let rows = number("D", defaultRows) else {
                return .failure(StreamerError("--fec \"\(text)\": L and D must be numbers"))
            }
            if let problem = FECParameters.problem(columns: columns, rows: rows) {
                return .failure(StreamerError("--fec \"\(text)\": \(problem)"))
            }
            let row = fields["row"] ?? "yes"
            guard row == "yes" || row == "no" else { return .failure(StreamerError("--fec \"\(text)\": row must be yes or no")) }
            return .success(.smpte2022_1(columns: columns, rows: rows, rowFEC: row == "yes"))
        case "reed-solomon", "rs":
            if let key = unknown(["k", "m", "port"]) {
                return .failure(StreamerError("--fec \"\(text)\": unknown key \(key) (reed-solomon takes k, m, port)"))
            }
            guard let k = number("k", defaultK), let m = number("m", defaultM), (1...255).contains(k), (1...255).contains(m) else {
                return .failure(StreamerError("--fec \"\(text)\": k and m must be numbers in 1...255"))
            }
            guard let port = number("port", Int(mediaPort &+ 2)), (1...65535).contains(port), port != Int(mediaPort) else {
                return .failure(StreamerError("--fec \"\(text)\": port must be 1...65535 and not the media port"))
            }
            return .success(.reedSolomon(k: k, m: m, repairPort: UInt16(port)))
        default:
            return .failure(StreamerError("--fec \"\(text)\": unknown scheme \"\(scheme)\" (smpte2022-1 or reed-solomon)"))
        }
    }

    /// True for Reed-Solomon windows beyond what GF(2^8) codes (k + m > 255): sent unprotected.
    public var isUnsupportedWindow: Bool {
        if case .reedSolomon(let k, let m, _) = self { return k + m > 255 }
        return false
    }

    /// What the SDP announces (`a=x-grandstand-fec:` + `attributeValue`). SDP cannot carry
    /// k + m > 255 (receivers refuse it), so an unsupported shape is announced as (k', 255 − k'),
    /// k' = min(k, 254); the repair headers carry the real shape and receivers count `window_error`.
    public var parameters: FECParameters {
        switch self {
        case .smpte2022_1(let columns, let rows, _):
            return .smpte2022_1(columns: columns, rows: rows)
        case .reedSolomon(let k, let m, let port):
            guard k + m > 255 else { return .reedSolomon(k: k, m: m, repairPort: port) }
            let announced = min(k, 254)
            return .reedSolomon(k: announced, m: 255 - announced, repairPort: port)
        }
    }

    /// The media-level SDP attribute line (without `a=`).
    public var attribute: String { "\(FECParameters.attributeName):\(parameters.attributeValue)" }

    /// Ports the repair flows go to.
    public func repairPorts(mediaPort: UInt16) -> [UInt16] {
        switch self {
        case .smpte2022_1(_, _, let rowFEC): return rowFEC ? [mediaPort &+ 2, mediaPort &+ 4] : [mediaPort &+ 2]
        case .reedSolomon(_, _, let port): return [port]
        }
    }

    /// The repair flow names of a channel whose media flow is `flow`.
    public func repairFlows(_ flow: String) -> [String] {
        switch self {
        case .smpte2022_1(_, _, let rowFEC): return rowFEC ? [flow + ".fec-col", flow + ".fec-row"] : [flow + ".fec-col"]
        case .reedSolomon: return [flow + ".rs"]
        }
    }

    /// A short human description for banners.
    public var summary: String {
        switch self {
        case .smpte2022_1(let l, let d, let rowFEC): return "SMPTE 2022-1 L=\(l) D=\(d)" + (rowFEC ? "" : " (column only)")
        case .reedSolomon(let k, let m, let port):
            return "Reed-Solomon k=\(k) m=\(m) → port \(port)" + (k + m > 255 ? " (k+m > 255: unprotected, window_error)" : "")
        }
    }
}
