/// The header fields of one request (RFC 9112 §5): names lowercased, values trimmed of OWS,
/// repeated names joined with ", "; Host counted, Content-Length and Transfer-Encoding kept apart
/// for the framing decision (§6.3).
struct FieldSet {
    var headers: [String: String] = [:]
    var hostCount = 0
    var contentLengths: [String] = []
    var transferEncodings: [String] = []

    /// Adds one field line; the error when it is malformed.
    mutating func add(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>) -> HTTP1ParseError? {
        let first = bytes[line.lowerBound]
        if first == 0x20 || first == 0x09 { return .obsoleteLineFolding }
        var colon = line.lowerBound
        while colon < line.upperBound, bytes[colon] != 0x3A {
            guard HTTP1Syntax.isTokenByte(bytes[colon]) else { return .badHeaderField }   // also "name :" (§5.1)
            colon += 1
        }
        guard colon < line.upperBound, colon > line.lowerBound else { return .badHeaderField }
        var valueStart = colon + 1, valueEnd = line.upperBound
        while valueStart < valueEnd, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        for i in valueStart..<valueEnd {
            let byte = bytes[i]
            if byte < 0x20 && byte != 0x09 || byte == 0x7F { return .badHeaderField }   // CR, NUL, other controls
        }
        let name = HTTP1Syntax.lowercasedString(bytes, line.lowerBound..<colon)
        let value = HTTP1Syntax.string(bytes, valueStart..<valueEnd)
        switch name {
        case "host": hostCount += 1
        case "content-length": contentLengths.append(value)
        case "transfer-encoding": transferEncodings.append(value)
        default: break
        }
        if let previous = headers[name] {
            headers[name] = previous + ", " + value
        } else {
            headers[name] = value
        }
        return nil
    }

    /// §6.3: Transfer-Encoding wins but with Content-Length too the request is refused
    /// (request smuggling); a list of identical lengths is one length.
    func framing(minor: Int) -> Result<HTTP1BodyFraming, HTTP1ParseError> {
        if !transferEncodings.isEmpty {
            guard contentLengths.isEmpty else { return .failure(.badContentLength) }
            let codings = transferEncodings.flatMap { HTTP1Syntax.tokens($0) }
            guard minor >= 1, codings.last == "chunked" else { return .failure(.badTransferEncoding) }
            return .success(.chunked)
        }
        var length: Int?
        for field in contentLengths {
            for item in field.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingOWS
                guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy(HTTP1Syntax.isDigit), let value = Int(text) else {
                    return .failure(.badContentLength)
                }
                if let length, length != value { return .failure(.badContentLength) }
                length = value
            }
        }
        guard let length, length > 0 else { return .success(.none) }
        return .success(.length(length))
    }
}

/// Byte classes and small conversions of RFC 9110 §5.6 and RFC 3986 §2.1.
enum HTTP1Syntax {
    /// tchar: ALPHA / DIGIT / "!#$%&'*+-.^_`|~".
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    static func lowercasedString(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count, initializingUTF8With: { buffer in
            for (offset, i) in range.enumerated() {
                let byte = bytes[i]
                buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return range.count
        })
    }

    /// Comma-separated tokens, trimmed and lowercased (Connection, Transfer-Encoding).
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingOWS.lowercased() }.filter { !$0.isEmpty }
    }

    /// The index after `scheme://` when `range` starts with one (absolute-form, §3.2.2).
    static func afterScheme(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound, isTokenByte(bytes[i]), bytes[i] != 0x3A { i += 1 }
        guard i > range.lowerBound, i + 2 < range.upperBound, bytes[i] == 0x3A, bytes[i + 1] == 0x2F, bytes[i + 2] == 0x2F else { return nil }
        return i + 3
    }

    /// `%XX` decoded (and `+` as space when asked); nil for a malformed escape, a NUL or bytes
    /// that are not UTF-8.
    static func percentDecoded(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, plusIsSpace: Bool) -> String? {
        var needsWork = false
        for i in range where bytes[i] == 0x25 || (plusIsSpace && bytes[i] == 0x2B) { needsWork = true; break }
        guard needsWork else { return string(bytes, range) }
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = bytes[i]
            if byte == 0x25 {
                guard i + 2 < range.upperBound, let high = asciiHexValue(bytes[i + 1]), let low = asciiHexValue(bytes[i + 2]) else { return nil }
                let decoded = high << 4 | low
                guard decoded != 0 else { return nil }
                out.append(decoded)
                i += 3
            } else {
                out.append(plusIsSpace && byte == 0x2B ? 0x20 : byte)
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A `..` segment (after decoding): the path would climb out of where it names.
    static func hasDotDotSegment(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." }
    }
}

extension Substring {
    var trimmingOWS: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}

/// The value of one hexadecimal digit (`0-9`, `A-F`, `a-f`), nil for any other byte: the `%XX`
/// escapes of RFC 3986 §2.1 (request targets here, the license header in Discovery).
func asciiHexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x41...0x46: return byte - 0x41 + 10
    case 0x61...0x66: return byte - 0x61 + 10
    default: return nil
    }
}
