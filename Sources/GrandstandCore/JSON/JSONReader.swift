/// Reads typed fields out of a JSONValue while recording every problem with its JSON path
/// (`$.network.wifiApInfo[1].bssid: …`), so one pass reports all bad values at once.
public struct JSONReader {
    public private(set) var issues: [JSONIssue] = []

    public init() {}

    /// Reports a problem found by a caller's own validation.
    public mutating func report(_ path: JSONPath, _ reason: String) {
        issues.append(JSONIssue(path: path, reason: reason))
    }

    /// The members of an object at `path`, checking that no unknown key is present.
    public mutating func object(_ value: JSONValue?, at path: JSONPath, known: Set<String>) -> JSONObjectView? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            report(path, "expected an object, got \(value.typeName)")
            return nil
        }
        for member in members where !known.contains(member.key) {
            report(path.appending(member.key), "unknown key (expected one of: \(known.sorted().joined(separator: ", ")))")
        }
        return JSONObjectView(path: path, value: value)
    }

    public mutating func string(_ value: JSONValue?, at path: JSONPath, required: Bool = false, nonEmpty: Bool = true) -> String? {
        guard let value else {
            if required { report(path, "required string is missing") }
            return nil
        }
        guard case .string(let text) = value else {
            report(path, "expected a string, got \(value.typeName)")
            return nil
        }
        if nonEmpty && text.isEmpty {
            report(path, "must not be empty")
            return nil
        }
        return text
    }

    public mutating func integer(_ value: JSONValue?, at path: JSONPath, in range: ClosedRange<Int>) -> Int? {
        guard let value else { return nil }
        guard case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 else {
            report(path, "expected an integer, got \(value.typeName == "a number" ? "a fraction" : value.typeName)")
            return nil
        }
        guard range.contains(Int(number)) else {
            report(path, "\(Int(number)) is out of range \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return Int(number)
    }

    public mutating func bool(_ value: JSONValue?, at path: JSONPath) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag) = value else {
            report(path, "expected true or false, got \(value.typeName)")
            return nil
        }
        return flag
    }

    public mutating func array(_ value: JSONValue?, at path: JSONPath) -> [(JSONPath, JSONValue)]? {
        guard let value else { return nil }
        guard case .array(let items) = value else {
            report(path, "expected an array, got \(value.typeName)")
            return nil
        }
        return items.enumerated().map { (path.appending(index: $0.offset), $0.element) }
    }
}

/// An object found by `JSONReader.object`, with the paths of its members.
public struct JSONObjectView {
    public let path: JSONPath
    public let value: JSONValue

    public subscript(key: String) -> JSONValue? { value[key] }
    public func path(_ key: String) -> JSONPath { path.appending(key) }
}

/// A location in a JSON document in JSONPath notation: `$`, `$.a.b`, `$.list[2].c`.
public struct JSONPath: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let description: String

    public init(stringLiteral value: String) { description = value }
    public static let root: JSONPath = "$"

    public func appending(_ key: String) -> JSONPath {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
        return JSONPath(stringLiteral: description + (plain ? ".\(key)" : "[\(JSONValue.quote(key))]"))
    }

    public func appending(index: Int) -> JSONPath { JSONPath(stringLiteral: description + "[\(index)]") }
}

/// One bad value: where and why.
public struct JSONIssue: Sendable, Equatable, CustomStringConvertible {
    public let path: JSONPath
    public let reason: String

    public init(path: JSONPath, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}
