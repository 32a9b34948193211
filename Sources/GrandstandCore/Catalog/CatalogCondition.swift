/// One `field:operator:value` condition of a catalog query, parsed and type-checked against the
/// field's kind so a bad query fails before it runs (as a `CatalogQueryError`, HTTP 400).
public struct CatalogCondition: Sendable, Equatable, CustomStringConvertible {
    public enum Operator: String, Sendable, CaseIterable {
        case equals, like, startsWith, endsWith
        case greater = ">", greaterOrEqual = ">=", less = "<", lessOrEqual = "<="
        case isTrue, isFalse
        /// The fixture has the field (StreamPlay's `_exists_:field`).
        case exists

        /// Spellings accepted besides the raw value (URL-friendly words).
        static let aliases: [String: Operator] = [
            "eq": .equals, "=": .equals, "gt": .greater, "gte": .greaterOrEqual, "lt": .less, "lte": .lessOrEqual,
        ]

        public init?(name: String) {
            if let op = Operator(rawValue: name) ?? Self.aliases[name] { self = op } else { return nil }
        }

        var takesValue: Bool { self != .isTrue && self != .isFalse && self != .exists }

        func applies(to kind: CatalogField.Kind) -> Bool {
            switch self {
            case .equals, .exists: true
            case .like, .startsWith, .endsWith: kind == .string || kind == .strings || kind == .identifier
            case .greater, .greaterOrEqual, .less, .lessOrEqual: kind == .number || kind == .date || kind == .identifier
            case .isTrue, .isFalse: kind == .bool
            }
        }
    }

    /// The operand, already converted to the field's kind.
    public enum Operand: Sendable, Equatable {
        case none
        case text(String)
        case number(Double)
        case date(CatalogDate)
        case bool(Bool)
    }

    public let field: CatalogField.Reference
    public let op: Operator
    public let operand: Operand

    public var description: String {
        switch operand {
        case .none: "\(field):\(op.rawValue)"
        case .text(let text): "\(field):\(op.rawValue):\(text)"
        case .number(let number): "\(field):\(op.rawValue):\(JSONValue.number(number).encoded)"
        case .date(let date): "\(field):\(op.rawValue):\(date)"
        case .bool(let flag): "\(field):\(op.rawValue):\(flag)"
        }
    }

    /// Parses `field:op[:value]`; the value may itself contain `:` (times).
    public static func parse(_ text: String) throws(CatalogQueryError) -> CatalogCondition {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw .malformedCondition(text) }
        guard let field = CatalogField.Reference(parts[0]) else { throw .unknownField(parts[0]) }
        guard let op = Operator(name: parts[1]) else { throw .unknownOperator(parts[1], condition: text) }
        let kind = field.field.kind
        guard op.applies(to: kind) else { throw .operatorNotApplicable(op.rawValue, field: field.description, kind: kind.rawValue) }
        guard op.takesValue else {
            guard parts.count == 2 || parts[2].isEmpty else { throw .badValue(field: field.description, value: parts[2], expected: "no value after \(op.rawValue)") }
            return CatalogCondition(field: field, op: op, operand: .none)
        }
        guard parts.count == 3 else { throw .badValue(field: field.description, value: "", expected: "a value after \(op.rawValue)") }
        let value = parts[2]
        switch kind {
        case .string, .strings, .identifier:
            return CatalogCondition(field: field, op: op, operand: .text(value))
        case .number:
            guard let number = Double(value), number.isFinite else { throw .badValue(field: field.description, value: value, expected: "a number") }
            return CatalogCondition(field: field, op: op, operand: .number(number))
        case .date:
            guard let date = CatalogDate.parse(value) else {
                throw .badValue(field: field.description, value: value, expected: "an ISO 8601 date (2025-08-01 or 2025-08-01T19:45:00Z)")
            }
            return CatalogCondition(field: field, op: op, operand: .date(date))
        case .bool:
            switch value.lowercased() {
            case "true", "1": return CatalogCondition(field: field, op: op, operand: .bool(true))
            case "false", "0": return CatalogCondition(field: field, op: op, operand: .bool(false))
            default: throw .badValue(field: field.description, value: value, expected: "true or false")
            }
        }
    }

    /// Whether `fixture` satisfies the condition. Missing values never match (except isFalse).
    func matches(_ fixture: Fixture, isLive: Bool) -> Bool {
        if op == .exists { return fixture.has(field, isLive: isLive) }
        switch (fixture.value(field, isLive: isLive), operand) {
        case (.identifier(let value?), .text(let wanted)):
            switch op {
            case .greater, .greaterOrEqual, .less, .lessOrEqual:
                let order = Self.order(value, wanted)
                switch op {
                case .greater: return order > 0
                case .greaterOrEqual: return order >= 0
                case .less: return order < 0
                default: return order <= 0
                }
            default: return Self.compare(value, wanted, op)
            }
        case (.bool(let flag), .none): return op == .isTrue ? flag : !flag
        case (.bool(let flag), .bool(let wanted)): return flag == wanted
        case (.string(let value?), .text(let wanted)): return Self.compare(value, wanted, op)
        case (.strings(let values), .text(let wanted)): return values.contains { Self.compare($0, wanted, op) }
        case (.number(let value?), .number(let wanted)):
            switch op {
            case .equals: return value == wanted
            case .greater: return value > wanted
            case .greaterOrEqual: return value >= wanted
            case .less: return value < wanted
            case .lessOrEqual: return value <= wanted
            default: return false
            }
        case (.date(let value?), .date(let wanted)):
            // A bare date stands for its whole day: "> 2025-08-01" means from the next midnight.
            let t = value.seconds
            switch op {
            case .equals: return wanted.wholeDay ? (wanted.seconds..<wanted.end).contains(t) : t == wanted.seconds
            case .greater: return wanted.wholeDay ? t >= wanted.end : t > wanted.seconds
            case .greaterOrEqual: return t >= wanted.seconds
            case .less: return t < wanted.seconds
            case .lessOrEqual: return wanted.wholeDay ? t < wanted.end : t <= wanted.seconds
            default: return false
            }
        default:
            return false
        }
    }

    /// equals is exact; like (substring) and startsWith ignore case.
    private static func compare(_ value: String, _ wanted: String, _ op: Operator) -> Bool {
        switch op {
        case .equals: value == wanted
        case .like: wanted.isEmpty || value.lowercased().contains(wanted.lowercased())
        case .startsWith: value.lowercased().hasPrefix(wanted.lowercased())
        case .endsWith: value.lowercased().hasSuffix(wanted.lowercased())
        default: false
        }
    }

    /// Ids compare as numbers when both are numbers (StreamPlay's integer ids), else as text
    /// ignoring case: -1, 0 or 1.
    static func order(_ value: String, _ wanted: String) -> Int {
        if let x = Double(value), let y = Double(wanted), x.isFinite, y.isFinite { return x < y ? -1 : (x > y ? 1 : 0) }
        let x = value.lowercased(), y = wanted.lowercased()
        return x < y ? -1 : (x > y ? 1 : 0)
    }

    /// One term of StreamPlay's query syntax, as the SDK's `SearchBuilder` writes it inside
    /// `q=(…)` (StreamPlayRequest.swift / StreamPlayRequest.kt `parameterString`):
    /// `field:value` (isEqualTo; `true`/`false` on a boolean field: isTrue/isFalse),
    /// `field:>value` `>=` `<` `<=` (comparisons), `field:*value*` (isLike), `field:value*`
    /// (startsWith), `field:*value` (endsWith), `_exists_:field`.
    public static func parse(streamPlay term: String) throws(CatalogQueryError) -> CatalogCondition {
        let text = String(Substring(term).trimmingSpaces)
        guard let colon = text.firstIndex(of: ":") else { throw .malformedCondition(text) }
        let name = String(text[..<colon]), rest = String(text[text.index(after: colon)...])
        if name == "_exists_" { return try parse("\(Substring(rest).trimmingSpaces):exists") }
        guard !name.isEmpty else { throw .malformedCondition(text) }
        for prefix in [">=", "<=", ">", "<"] where rest.hasPrefix(prefix) {
            return try parse("\(name):\(prefix):\(rest.dropFirst(prefix.count))")
        }
        if rest.count >= 2, rest.hasPrefix("*"), rest.hasSuffix("*") { return try parse("\(name):like:\(rest.dropFirst().dropLast())") }
        if rest.count >= 2, rest.hasSuffix("*") { return try parse("\(name):startsWith:\(rest.dropLast())") }
        if rest.count >= 2, rest.hasPrefix("*") { return try parse("\(name):endsWith:\(rest.dropFirst())") }
        if let field = CatalogField.Reference(name), field.field.kind == .bool {
            switch rest.lowercased() {
            case "true": return try parse("\(name):isTrue")
            case "false": return try parse("\(name):isFalse")
            default: break
            }
        }
        return try parse("\(name):equals:\(rest)")
    }
}
