/// A strict parser for the small XML subset FDT instances use (RFC 6726 §3.4.2): an optional
/// declaration, comments and processing instructions, elements with attributes, text and CDATA,
/// the five predefined entities and numeric character references. No DTDs (refused), no
/// external anything; bounded depth and size. Names keep their prefix off (`fdt:File` → `File`),
/// namespaces are not resolved. Foundation's XMLParser is not on the cross toolchain.
public struct XMLElement: Sendable, Equatable {
    public var name: String
    public var attributes: [(name: String, value: String)]
    public var children: [XMLElement]
    public var text: String

    public static func == (a: XMLElement, b: XMLElement) -> Bool {
        a.name == b.name && a.children == b.children && a.text == b.text
            && a.attributes.map(\.name) == b.attributes.map(\.name) && a.attributes.map(\.value) == b.attributes.map(\.value)
    }

    public func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
}

public struct XMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "XML at byte \(offset): \(reason)" }
}

public enum XMLSubset {
    public static let maxDepth = 32
    public static let maxBytes = 4 << 20

    /// The document's root element.
    public static func parse(_ bytes: [UInt8]) -> Result<XMLElement, XMLError> {
        var parser = Parser(bytes: bytes)
        do throws(XMLError) { return .success(try parser.document()) } catch { return .failure(error) }
    }

    struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ reason: String) -> XMLError { XMLError(offset: i, reason: reason) }

        func peek(_ text: String) -> Bool {
            let t = Array(text.utf8)
            guard i + t.count <= bytes.count else { return false }
            for (n, b) in t.enumerated() where bytes[i + n] != b { return false }
            return true
        }

        mutating func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }

        mutating func skip(past terminator: String) throws(XMLError) {
            while i < bytes.count { if peek(terminator) { i += terminator.utf8.count; return }; i += 1 }
            throw fail("unterminated construct (no \(terminator))")
        }

        /// Comments, processing instructions and space between markup.
        mutating func misc() throws(XMLError) {
            while true {
                skipSpace()
                if peek("<!--") { i += 4; try skip(past: "-->") }
                else if peek("<?") { i += 2; try skip(past: "?>") }
                else { return }
            }
        }

        mutating func document() throws(XMLError) -> XMLElement {
            guard bytes.count <= XMLSubset.maxBytes else { throw fail("document larger than \(XMLSubset.maxBytes) bytes") }
            if peek("\u{FEFF}") { i += 3 }
            try misc()
            if peek("<!DOCTYPE") || peek("<!doctype") { throw fail("DTDs are not accepted") }
            guard peek("<") else { throw fail("no root element") }
            let root = try element(depth: 1)
            try misc()
            guard i == bytes.count else { throw fail("content after the root element") }
            return root
        }

        static func isNameByte(_ b: UInt8) -> Bool {
            (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
                || b == 0x5F || b == 0x2D || b == 0x2E || b == 0x3A || b >= 0x80
        }

        mutating func name() throws(XMLError) -> String {
            let start = i
            while i < bytes.count, Self.isNameByte(bytes[i]) { i += 1 }
            guard i > start, !(bytes[start] >= 0x30 && bytes[start] <= 0x39), bytes[start] != 0x2D, bytes[start] != 0x2E else {
                throw fail("expected a name")
            }
            let full = String(decoding: bytes[start..<i], as: UTF8.self)
            if let colon = full.lastIndex(of: ":") { return String(full[full.index(after: colon)...]) }
            return full
        }

        mutating func element(depth: Int) throws(XMLError) -> XMLElement {
            guard depth <= XMLSubset.maxDepth else { throw fail("elements nested deeper than \(XMLSubset.maxDepth)") }
            i += 1   // "<"
            let start = i
            let tag = try name()
            let rawTag = String(decoding: bytes[start..<i], as: UTF8.self)
            var node = XMLElement(name: tag, attributes: [], children: [], text: "")
            var seen: Set<String> = []
            while true {
                let hadSpace = i < bytes.count && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i])
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated start tag <\(rawTag)>") }
                if peek("/>") { i += 2; return node }
                if bytes[i] == 0x3E { i += 1; break }
                guard hadSpace else { throw fail("attributes must be separated by space") }
                let rawStart = i
                let attributeName = try name()
                let rawName = String(decoding: bytes[rawStart..<i], as: UTF8.self)
                guard seen.insert(rawName).inserted else { throw fail("duplicate attribute \(rawName)") }
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x3D else { throw fail("expected = after \(rawName)") }
                i += 1
                skipSpace()
                guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 else { throw fail("attribute value must be quoted") }
                let quote = bytes[i]
                i += 1
                let value = try characters(until: quote, inAttribute: true)
                i += 1
                if rawName == "xmlns" || rawName.hasPrefix("xmlns:") { continue }
                node.attributes.append((attributeName, value))
            }
            // Content until the matching end tag.
            var text = ""
            while true {
                guard i < bytes.count else { throw fail("unterminated element <\(rawTag)>") }
                if peek("</") {
                    i += 2
                    let endStart = i
                    _ = try name()
                    let rawEnd = String(decoding: bytes[endStart..<i], as: UTF8.self)
                    guard rawEnd == rawTag else { throw fail("end tag </\(rawEnd)> does not match <\(rawTag)>") }
                    skipSpace()
                    guard i < bytes.count, bytes[i] == 0x3E else { throw fail("malformed end tag") }
                    i += 1
                    node.text = text
                    return node
                } else if peek("<!--") {
                    i += 4; try skip(past: "-->")
                } else if peek("<![CDATA[") {
                    i += 9
                    let start = i
                    try skip(past: "]]>")
                    text += String(decoding: bytes[start..<(i - 3)], as: UTF8.self)
                } else if peek("<?") {
                    i += 2; try skip(past: "?>")
                } else if peek("<!") {
                    throw fail("declarations are not accepted inside elements")
                } else if bytes[i] == 0x3C {
                    node.children.append(try element(depth: depth + 1))
                } else {
                    text += try characters(until: 0x3C, inAttribute: false)
                }
            }
        }

        /// Character data up to (not including) `terminator`, entities decoded.
        mutating func characters(until terminator: UInt8, inAttribute: Bool) throws(XMLError) -> String {
            var out: [UInt8] = []
            while i < bytes.count, bytes[i] != terminator {
                let b = bytes[i]
                if inAttribute, b == 0x3C { throw fail("< in an attribute value") }
                if b == 0x26 {
                    guard let semicolon = bytes[i...].prefix(12).firstIndex(of: 0x3B) else { throw fail("unterminated entity") }
                    let entity = String(decoding: bytes[(i + 1)..<semicolon], as: UTF8.self)
                    switch entity {
                    case "amp": out.append(0x26)
                    case "lt": out.append(0x3C)
                    case "gt": out.append(0x3E)
                    case "quot": out.append(0x22)
                    case "apos": out.append(0x27)
                    default:
                        var value: UInt32? = nil
                        if entity.hasPrefix("#x") { value = UInt32(entity.dropFirst(2), radix: 16) }
                        else if entity.hasPrefix("#") { value = UInt32(entity.dropFirst(), radix: 10) }
                        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { throw fail("unknown entity &\(entity);") }
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    }
                    i = semicolon + 1
                } else {
                    out.append(b)
                    i += 1
                }
            }
            guard i < bytes.count || !inAttribute else { throw fail("unterminated attribute value") }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
