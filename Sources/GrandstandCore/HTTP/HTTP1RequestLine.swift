/// `method SP request-target SP HTTP-version` (RFC 9112 §3), the target split into a decoded
/// path and query arguments (§3.2: origin-form, absolute-form, asterisk-form for OPTIONS).
struct RequestLine {
    var method: String
    var target: String
    var path: String
    var query: [String: String]
    var minor: Int

    static func parse(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>, limits: HTTP1RequestParser.Limits) -> Result<RequestLine, HTTP1ParseError> {
        var firstSpace = line.lowerBound
        while firstSpace < line.upperBound, bytes[firstSpace] != 0x20 { firstSpace += 1 }
        var lastSpace = line.upperBound - 1
        while lastSpace > firstSpace, bytes[lastSpace] != 0x20 { lastSpace -= 1 }
        guard firstSpace > line.lowerBound, firstSpace < line.upperBound, lastSpace > firstSpace + 1,
              lastSpace < line.upperBound - 1 else { return .failure(.badRequestLine) }
        for i in line.lowerBound..<firstSpace where !HTTP1Syntax.isTokenByte(bytes[i]) { return .failure(.badRequestLine) }
        let targetRange = (firstSpace + 1)..<lastSpace
        for i in targetRange where bytes[i] <= 0x20 || bytes[i] >= 0x7F { return .failure(.badRequestLine) }
        guard targetRange.count <= limits.maxTargetBytes else { return .failure(.targetTooLong) }
        guard let minor = version(bytes, (lastSpace + 1)..<line.upperBound) else {
            return .failure(isVersionShaped(bytes, (lastSpace + 1)..<line.upperBound) ? .unsupportedVersion : .badVersion)
        }
        let method = HTTP1Syntax.string(bytes, line.lowerBound..<firstSpace)
        let target = HTTP1Syntax.string(bytes, targetRange)
        guard let (path, query) = split(bytes, targetRange, method: method) else { return .failure(.badTarget) }
        return .success(RequestLine(method: method, target: target, path: path, query: query, minor: minor))
    }

    /// `HTTP/1.D` → D (§2.3: a later 1.x minor is served as 1.1).
    private static func version(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard isVersionShaped(bytes, range), bytes[range.lowerBound + 5] == 0x31 else { return nil }
        return bytes[range.lowerBound + 7] == 0x30 ? 0 : 1
    }

    /// `HTTP/D.D`, any digits.
    private static func isVersionShaped(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        guard range.count == 8 else { return false }
        let b = range.lowerBound
        return bytes[b] == 0x48 && bytes[b + 1] == 0x54 && bytes[b + 2] == 0x54 && bytes[b + 3] == 0x50 && bytes[b + 4] == 0x2F
            && HTTP1Syntax.isDigit(bytes[b + 5]) && bytes[b + 6] == 0x2E && HTTP1Syntax.isDigit(bytes[b + 7])
    }

    /// The decoded path and query arguments; nil for a target the listener refuses.
    private static func split(_ bytes: UnsafeRawBufferPointer, _ target: Range<Int>, method: String) -> (String, [String: String])? {
        var start = target.lowerBound
        if bytes[start] == 0x2A {   // "*"
            return target.count == 1 && method == "OPTIONS" ? ("*", [:]) : nil
        }
        if bytes[start] != 0x2F {
            // absolute-form: scheme "://" authority, then the path (or "/").
            guard let authority = HTTP1Syntax.afterScheme(bytes, target) else { return nil }
            start = authority
            while start < target.upperBound, bytes[start] != 0x2F, bytes[start] != 0x3F { start += 1 }
        }
        var queryStart = start
        while queryStart < target.upperBound, bytes[queryStart] != 0x3F { queryStart += 1 }
        for i in start..<queryStart where bytes[i] == 0x23 { return nil }   // '#': not in a request target
        let path: String
        if start == queryStart {
            path = "/"
        } else {
            guard let decoded = HTTP1Syntax.percentDecoded(bytes, start..<queryStart, plusIsSpace: false),
                  !HTTP1Syntax.hasDotDotSegment(decoded) else { return nil }
            path = decoded
        }
        var query: [String: String] = [:]
        guard queryStart < target.upperBound else { return (path, query) }
        var pairStart = queryStart + 1
        while pairStart <= target.upperBound {
            var pairEnd = pairStart
            while pairEnd < target.upperBound, bytes[pairEnd] != 0x26 { pairEnd += 1 }
            if pairEnd > pairStart {
                var equals = pairStart
                while equals < pairEnd, bytes[equals] != 0x3D { equals += 1 }
                guard let name = HTTP1Syntax.percentDecoded(bytes, pairStart..<equals, plusIsSpace: true),
                      let value = HTTP1Syntax.percentDecoded(bytes, Swift.min(equals + 1, pairEnd)..<pairEnd, plusIsSpace: true)
                else { return nil }
                if !name.isEmpty { query[name] = value }
            }
            pairStart = pairEnd + 1
        }
        for i in queryStart..<target.upperBound where bytes[i] == 0x23 { return nil }
        return (path, query)
    }
}
