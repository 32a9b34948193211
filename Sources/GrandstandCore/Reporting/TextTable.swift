/// Plain-text tables for the management clients (`grandstand status|channels|stats`): columns
/// padded to their widest cell, two spaces apart, no trailing blanks.
public struct TextTable: Sendable, Equatable {
    public var header: [String]
    public var rows: [[String]] = []

    public init(_ header: [String]) { self.header = header }

    public mutating func append(_ row: [String]) { rows.append(row) }

    public var text: String {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return all.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                line += index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }

    /// Flattens a JSON value into `path value` rows (`listeners.fan  127.0.0.1:8080`).
    public static func flattened(_ value: JSONValue, prefix: String = "") -> [(String, String)] {
        switch value {
        case .object(let members):
            return members.flatMap { flattened($0.value, prefix: prefix.isEmpty ? $0.key : prefix + "." + $0.key) }
        case .array(let items) where items.contains(where: { if case .object = $0 { true } else { false } }):
            return items.enumerated().flatMap { flattened($0.element, prefix: "\(prefix)[\($0.offset)]") }
        case .array(let items):
            return [(prefix, items.map(cell).joined(separator: ", "))]
        default:
            return [(prefix, cell(value))]
        }
    }

    /// A JSON scalar as a table cell: strings bare, null as "-".
    public static func cell(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: text
        case .null?, nil: "-"
        case let other?: other.encoded
        }
    }
}
