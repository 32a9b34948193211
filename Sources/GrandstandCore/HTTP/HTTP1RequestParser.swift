/// A sans-I/O HTTP/1.1 request-head parser (RFC 9112 §2–3, §6–7, §9): give it the bytes read so
/// far, starting at the current request, and it answers `.incomplete`, the head with how many
/// bytes it took, or a typed error. It remembers how far it searched, so feeding a head byte by
/// byte costs linear time; after a head (or an error) it starts over for the next request.
///
/// Choices (docs/serving.md, "Request parsing"): CRLF or bare LF end lines (§2.2); empty lines
/// before a request line are skipped; one SP between request-line parts; obs-fold is refused;
/// a `..` path segment, a NUL or a malformed escape anywhere in the target → 400; both
/// Content-Length and Transfer-Encoding → 400; a coding other than a final `chunked` → 501.
public struct HTTP1RequestParser: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Request line plus header fields; a larger head is refused with 431.
        public var maxHeadBytes = 32 * 1024
        /// The request target; longer is refused with 414.
        public var maxTargetBytes = 8 * 1024
        public init() {}
    }

    public enum Outcome: Sendable, Equatable {
        case incomplete
        /// `consumed` bytes (leading empty lines and the head's final empty line included).
        case head(HTTP1RequestHead, consumed: Int)
        case failure(HTTP1ParseError)
    }

    public var limits: Limits
    /// Where the search for the head's end resumes.
    private var scanned = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Looks for a complete head at the start of `bytes` (the same buffer, grown, between calls).
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let n = bytes.count
        var begin = 0
        while begin < n, bytes[begin] == asciiCR || bytes[begin] == asciiLF { begin += 1 }
        var i = Swift.max(begin, scanned)
        var end = -1
        while i < n {
            if bytes[i] == asciiLF {
                if i + 1 < n, bytes[i + 1] == asciiLF { end = i + 2; break }
                if i + 2 < n, bytes[i + 1] == asciiCR, bytes[i + 2] == asciiLF { end = i + 3; break }
            }
            i += 1
        }
        guard end >= 0 else {
            scanned = Swift.max(begin, n - 3)
            if let early = tooLarge(bytes, begin: begin, end: n, complete: false) { scanned = 0; return .failure(early) }
            return .incomplete
        }
        scanned = 0
        if let error = tooLarge(bytes, begin: begin, end: end, complete: true) { return .failure(error) }
        switch Self.head(bytes, begin: begin, end: end, limits: limits) {
        case .success(let head): return .head(head, consumed: end)
        case .failure(let error): return .failure(error)
        }
    }

    public mutating func parse(_ bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Forgets the search position (the caller dropped the buffer).
    public mutating func reset() { scanned = 0 }

    /// 414 when the request line alone is past the target limit, 431 when the head is past its own.
    private func tooLarge(_ bytes: UnsafeRawBufferPointer, begin: Int, end: Int, complete: Bool) -> HTTP1ParseError? {
        var lineEnd = begin
        while lineEnd < end, bytes[lineEnd] != asciiLF { lineEnd += 1 }
        // Method (≤ 32 bytes here) + target + " HTTP/1.1\r": the target limit with some slack.
        if lineEnd - begin > limits.maxTargetBytes + 48 { return .targetTooLong }
        if end - begin > limits.maxHeadBytes { return .headersTooLarge }
        if !complete, lineEnd == end, end - begin >= limits.maxHeadBytes { return .targetTooLong }
        return nil
    }

    static func head(_ bytes: UnsafeRawBufferPointer, begin: Int, end: Int, limits: Limits) -> Result<HTTP1RequestHead, HTTP1ParseError> {
        var lines = LineReader(bytes: bytes, position: begin, end: end)
        guard let line = lines.next() else { return .failure(.badRequestLine) }
        let request: RequestLine
        switch RequestLine.parse(bytes, line, limits: limits) {
        case .success(let parsed): request = parsed
        case .failure(let error): return .failure(error)
        }
        var fields = FieldSet()
        while let line = lines.next() {
            if line.isEmpty { break }
            if let error = fields.add(bytes, line) { return .failure(error) }
        }
        let minor = request.minor
        if minor >= 1 ? fields.hostCount != 1 : fields.hostCount > 1 { return .failure(.missingHost) }
        let framing: HTTP1BodyFraming
        switch fields.framing(minor: minor) {
        case .success(let f): framing = f
        case .failure(let error): return .failure(error)
        }
        let tokens = HTTP1Syntax.tokens(fields.headers["connection"] ?? "")
        let keepAlive = minor >= 1 ? !tokens.contains("close") : tokens.contains("keep-alive") && !tokens.contains("close")
        return .success(HTTP1RequestHead(method: request.method, target: request.target, path: request.path, query: request.query,
                                         minorVersion: minor, headers: fields.headers, body: framing, keepAlive: keepAlive))
    }
}

let asciiCR: UInt8 = 0x0D
let asciiLF: UInt8 = 0x0A

/// Lines between `position` and `end`, without their CRLF / LF.
struct LineReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int
    let end: Int

    mutating func next() -> Range<Int>? {
        guard position < end else { return nil }
        var i = position
        while i < end, bytes[i] != asciiLF { i += 1 }
        var stop = i
        if stop > position, bytes[stop - 1] == asciiCR { stop -= 1 }
        defer { position = i + 1 }
        return position..<stop
    }
}
