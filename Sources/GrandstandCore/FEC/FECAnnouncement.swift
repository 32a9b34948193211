/// A channel's FEC as announced in SDP by `a=x-grandstand-fec:` (docs/protocol.md, "FEC in
/// SDP"), at media level (or session level, which the media level overrides):
///
///     a=x-grandstand-fec:scheme=rs;k=20;m=5[;port=P][;pt=97]
///     a=x-grandstand-fec:scheme=smpte2022-1;l=4;d=3[;column-port=P][;row-port=P|none][;pt=96]
///
/// `;`-separated `key=value` items in any order, keys case-sensitive, unknown keys ignored.
/// Ports default to the media port + 2 (RS repair flow, 2022-1 column FEC) and + 4 (row FEC).
public enum FECAnnouncement: Sendable, Equatable {
    case reedSolomon(sourceCount: Int, repairCount: Int, port: Int, payloadType: UInt8)
    /// `rowPort` nil: column FEC only (SMPTE 2022-1 level A, "1D").
    case smpte2022(columns: Int, rows: Int, columnPort: Int, rowPort: Int?, payloadType: UInt8)

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "x-grandstand-fec: \(reason)" }
    }

    /// Parses the attribute value (after `x-grandstand-fec:`) for a medium on `mediaPort`.
    public static func parse(_ value: String, mediaPort: Int) -> Result<FECAnnouncement, ParseError> {
        var items: [String: String] = [:]
        for item in value.split(separator: ";", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { return .failure(ParseError(reason: "item '\(item)' is not key=value")) }
            let key = String(parts[0]).trimmingSpaces()
            guard items[key] == nil else { return .failure(ParseError(reason: "'\(key)' appears twice")) }
            items[key] = String(parts[1]).trimmingSpaces()
        }
        var failure: ParseError? = nil
        func number(_ key: String, _ range: ClosedRange<Int>, default value: Int? = nil) -> Int {
            guard let text = items[key] else {
                if value == nil, failure == nil { failure = ParseError(reason: "'\(key)' is missing") }
                return value ?? 0
            }
            guard let n = Int(text), range.contains(n) else {
                if failure == nil {
                    failure = ParseError(reason: "'\(key)=\(text)' is not a number in \(range.lowerBound)…\(range.upperBound)")
                }
                return 0
            }
            return n
        }
        let announcement: FECAnnouncement
        switch items["scheme"]?.lowercased() {
        case "rs":
            let k = number("k", 1...255), m = number("m", 1...255)
            let port = number("port", 1...65535, default: mediaPort + 2)
            let pt = number("pt", 0...127, default: 97)
            announcement = .reedSolomon(sourceCount: k, repairCount: m, port: port, payloadType: UInt8(pt))
        case "smpte2022-1":
            let l = number("l", 1...255), d = number("d", 1...255)
            let column = number("column-port", 1...65535, default: mediaPort + 2)
            let row: Int? = items["row-port"]?.lowercased() == "none" ? nil : number("row-port", 1...65535, default: mediaPort + 4)
            let pt = number("pt", 0...127, default: 96)
            announcement = .smpte2022(columns: l, rows: d, columnPort: column, rowPort: row, payloadType: UInt8(pt))
        case let other:
            return .failure(ParseError(reason: other.map { "unknown scheme '\($0)'" } ?? "'scheme' is missing"))
        }
        if let failure { return .failure(failure) }
        return .success(announcement)
    }

    /// The attribute value a sender announces (every field explicit).
    public var attributeValue: String {
        switch self {
        case let .reedSolomon(k, m, port, pt):
            return "scheme=rs;k=\(k);m=\(m);port=\(port);pt=\(pt)"
        case let .smpte2022(l, d, column, row, pt):
            return "scheme=smpte2022-1;l=\(l);d=\(d);column-port=\(column);row-port=\(row.map(String.init) ?? "none");pt=\(pt)"
        }
    }

    /// The UDP ports that carry repair data (to capture and join besides the media port).
    public var repairPorts: [Int] {
        switch self {
        case let .reedSolomon(_, _, port, _): return [port]
        case let .smpte2022(_, _, column, row, _): return [column] + (row.map { [$0] } ?? [])
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var slice = self[...]
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}
