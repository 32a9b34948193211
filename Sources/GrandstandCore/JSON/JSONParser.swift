/// A strict RFC 8259 parser over UTF-8 bytes with bounded nesting, so hostile input (a config
/// upload, a feed) fails with a position instead of exhausting the stack.
public struct JSONParser {
    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        public let line: Int
        public let column: Int
        public let reason: String
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    public static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure {
        var line = 1, column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        return Failure(line: line, column: column, reason: reason)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
        let utf8 = Array(literal.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw failure("invalid literal (expected \(literal))")
        }
        index += utf8.count
        return value
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try nested { (p: inout JSONParser) throws(Failure) in try p.parseObject() }
        case UInt8(ascii: "["): return try nested { (p: inout JSONParser) throws(Failure) in try p.parseArray() }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func nested(_ body: (inout JSONParser) throws(Failure) -> JSONValue) throws(Failure) -> JSONValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
        return try body(&self)
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
            let key = try parseString()
            if members.contains(where: { $0.key == key }) { throw failure("duplicate member \"\(key)\"") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after member name") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw failure("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw failure("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (0x30...0x39).contains(first) else { throw failure("invalid number") }
        if first == 0x30 { index += 1 } else { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, (0x30...0x39).contains(digit) else { throw failure("invalid number: digit expected after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, (0x30...0x39).contains(digit) else { throw failure("invalid number: digit expected in exponent") }
            skipDigits()
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw failure("number out of range")
        }
        return .number(value)
    }

    private mutating func skipDigits() {
        while let byte = current, (0x30...0x39).contains(byte) { index += 1 }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, _ end: Int) throws(Failure) {
            guard let run = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw parser.failure("invalid UTF-8 in string")
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(self, index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(self, index)
                index += 1
                scalars.append(try parseEscape())
                runStart = index
            case 0..<0x20:
                throw failure("control character in string")
            default:
                index += 1
            }
        }
    }

    private mutating func parseEscape() throws(Failure) -> Unicode.Scalar {
        guard let byte = current else { throw failure("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("unpaired surrogate in \\u escape")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low),
                      let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) else {
                    throw failure("invalid surrogate pair in \\u escape")
                }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("unpaired surrogate in \\u escape") }
            return scalar
        default:
            throw failure("invalid escape '\\\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4,
              let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw failure("invalid \\u escape")
        }
        index += 4
        return value
    }
}
