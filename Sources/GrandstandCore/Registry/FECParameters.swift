/// The forward error correction a channel is announced (or configured) with. The registry only
/// carries these facts; the FEC decoders use them in the receive path's recovery stage.
public enum FECParameters: Sendable, Equatable {
    case none
    /// SMPTE 2022-1 XOR FEC: column repair on port+2, row repair on port+4. `columns` (L) and
    /// `rows` (D) are optional: the FEC packet headers carry them too.
    case smpte2022_1(columns: Int?, rows: Int?)
    /// Reed-Solomon protection windows over GF(2^8): `k` source and `m` repair packets per
    /// window, repair packets on `repairPort`.
    case reedSolomon(k: Int, m: Int, repairPort: UInt16)

    /// SDP attribute carrying these parameters (docs/ingest.md):
    /// `a=x-grandstand-fec:scheme=smpte2022-1;L=10;D=5` or `…scheme=reed-solomon;k=20;m=4;repairPort=5002`.
    public static let attributeName = "x-grandstand-fec"

    public var scheme: String {
        switch self {
        case .none: "none"
        case .smpte2022_1: "smpte2022-1"
        case .reedSolomon: "reed-solomon"
        }
    }

    /// The UDP ports repair packets arrive on for a channel whose media is on `port`.
    public func repairPorts(mediaPort port: UInt16) -> [UInt16] {
        switch self {
        case .none: return []
        case .smpte2022_1: return [port &+ 2, port &+ 4]
        case .reedSolomon(_, _, let repairPort): return [repairPort]
        }
    }

    /// Checks the values a scheme allows; nil when valid, else the reason. SMPTE 2022-1: L and
    /// D in 1...20 with L×D ≤ 100. Reed-Solomon: k, m ≥ 1 and k + m ≤ 255 (GF(2^8) codewords).
    public static func problem(columns: Int?, rows: Int?) -> String? {
        if let columns, !(1...20).contains(columns) { return "L \(columns) is out of range 1...20" }
        if let rows, !(1...20).contains(rows) { return "D \(rows) is out of range 1...20" }
        if let columns, let rows, columns * rows > 100 { return "L×D = \(columns * rows) exceeds 100" }
        return nil
    }

    public static func problem(k: Int, m: Int) -> String? {
        guard k >= 1, m >= 1 else { return "k and m must be at least 1" }
        guard k + m <= 255 else { return "k + m = \(k + m) exceeds 255 (GF(2^8) codeword length)" }
        return nil
    }

    /// Parses the attribute value (`;`-separated `key=value`, keys case-sensitive). `mediaPort`
    /// gives the Reed-Solomon repair port when `repairPort` is absent (media port + 2).
    public static func parse(_ value: String, mediaPort: UInt16) -> Result<FECParameters, FECSyntaxError> {
        var fields: [String: String] = [:]
        for item in value.split(separator: ";", omittingEmptySubsequences: true) {
            let trimmed = item.trimmingSpaces
            guard let equals = trimmed.firstIndex(of: "=") else { return .failure(.init("\"\(trimmed)\" is not key=value")) }
            let key = String(trimmed[..<equals])
            guard fields[key] == nil else { return .failure(.init("\(key) appears twice")) }
            fields[key] = String(trimmed[trimmed.index(after: equals)...])
        }
        func number(_ key: String) -> Result<Int?, FECSyntaxError> {
            guard let text = fields[key] else { return .success(nil) }
            guard let value = Int(text), value >= 0 else { return .failure(.init("\(key)=\(text) is not a number")) }
            return .success(value)
        }
        switch fields["scheme"]?.lowercased() {
        case "none"?:
            return .success(.none)
        case "smpte2022-1"?:
            guard case .success(let columns) = number("L"), case .success(let rows) = number("D") else {
                return .failure(.init("L and D must be numbers"))
            }
            if let problem = problem(columns: columns, rows: rows) { return .failure(.init(problem)) }
            return .success(.smpte2022_1(columns: columns, rows: rows))
        case "reed-solomon"?:
            guard case .success(let k?) = number("k"), case .success(let m?) = number("m") else {
                return .failure(.init("reed-solomon needs numeric k and m"))
            }
            if let problem = problem(k: k, m: m) { return .failure(.init(problem)) }
            guard case .success(let port) = number("repairPort"), (port ?? 1) <= 65535, port != 0 else {
                return .failure(.init("repairPort must be 1...65535"))
            }
            return .success(.reedSolomon(k: k, m: m, repairPort: port.map { UInt16($0) } ?? mediaPort &+ 2))
        case nil:
            return .failure(.init("missing scheme"))
        case let other?:
            return .failure(.init("unknown scheme \"\(other)\" (none, smpte2022-1, reed-solomon)"))
        }
    }

    /// The attribute value the streamer announces.
    public var attributeValue: String {
        switch self {
        case .none: return "scheme=none"
        case .smpte2022_1(let columns, let rows):
            var text = "scheme=smpte2022-1"
            if let columns { text += ";L=\(columns)" }
            if let rows { text += ";D=\(rows)" }
            return text
        case .reedSolomon(let k, let m, let repairPort): return "scheme=reed-solomon;k=\(k);m=\(m);repairPort=\(repairPort)"
        }
    }

    /// `{"scheme":…, …}` as in the config file and channels.json.
    public var json: JSONValue {
        switch self {
        case .none: return .object([("scheme", .string("none"))])
        case .smpte2022_1(let columns, let rows):
            return .object([("D", rows.map { .number(Double($0)) } ?? .null), ("L", columns.map { .number(Double($0)) } ?? .null),
                            ("scheme", .string("smpte2022-1"))])
        case .reedSolomon(let k, let m, let repairPort):
            return .object([("k", .number(Double(k))), ("m", .number(Double(m))), ("repairPort", .number(Double(repairPort))),
                            ("scheme", .string("reed-solomon"))])
        }
    }
}

/// Why an `x-grandstand-fec` value was refused.
public struct FECSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed \(FECParameters.attributeName): \(reason)" }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
