/// A request's `Range` field resolved against a representation of known length (RFC 9110 §14).
/// Pure and total: any field value gives an answer, so the fan listener can take it from anyone.
///
/// Choices (documented in docs/serving.md):
/// - one `bytes=` range (`a-b`, `a-`, `-n`) → `.partial` (206); `a-b` past the end is clamped.
/// - not satisfiable (first byte at or past the end, `-0`, any int-range of an empty body) →
///   `.unsatisfiable` (416 with `Content-Range: bytes */LEN`).
/// - malformed, another unit, or several ranges → `.full` (200 with the whole body): §14.2 lets a
///   server ignore Range, and one small body is cheaper than multipart/byteranges.
public enum ByteRangeSelection: Equatable, Sendable {
    case full
    /// Inclusive byte offsets, `first <= last < length`.
    case partial(first: Int, last: Int)
    case unsatisfiable

    /// Resolves `range` (the field value, nil when absent) for a body of `length` bytes. With
    /// `ifRange` (the If-Range field) the range applies only when it names `entityTag` exactly
    /// (strong comparison, §13.1.5); a date or another tag gives the whole body.
    public static func select(range: String?, length: Int, ifRange: String? = nil, entityTag: String? = nil) -> ByteRangeSelection {
        guard let range, length >= 0 else { return .full }
        if let ifRange {
            guard let entityTag, EntityTag.strongMatch(ifRange, entityTag) else { return .full }
        }
        guard let spec = ByteRangeSpec.parse(range) else { return .full }
        return spec.resolve(length: length)
    }

    /// The `Content-Range` value of a 206 (`bytes 0-99/1000`) or 416 (`bytes */1000`) answer.
    public func contentRange(length: Int) -> String? {
        switch self {
        case .full: return nil
        case .partial(let first, let last): return "bytes \(first)-\(last)/\(length)"
        case .unsatisfiable: return "bytes */\(length)"
        }
    }
}

/// One parsed `bytes=` range-spec (§14.1.1), before it meets a length.
public enum ByteRangeSpec: Equatable, Sendable {
    /// `first-` (last nil) or `first-last`.
    case from(first: Int, last: Int?)
    /// `-count`: the last `count` bytes.
    case suffix(count: Int)

    /// Parses a Range field value; nil when it is not exactly one valid `bytes` range (another
    /// unit, several ranges, bad digits, `last < first`). Empty list elements and optional
    /// whitespace around them are accepted (§5.6.1.2). Huge numbers saturate at Int.max.
    public static func parse(_ field: String) -> ByteRangeSpec? {
        let bytes = Array(field.utf8)
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        let unit: [UInt8] = Array("bytes=".utf8)
        guard end - start >= unit.count else { return nil }
        for i in 0..<unit.count where lower(bytes[start + i]) != unit[i] { return nil }
        var elements: [ArraySlice<UInt8>] = []
        for element in bytes[(start + unit.count)..<end].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var a = element.startIndex, b = element.endIndex
            while a < b, isSpace(element[a]) { a += 1 }
            while b > a, isSpace(element[b - 1]) { b -= 1 }
            if a < b { elements.append(element[a..<b]) }
            if elements.count > 1 { return nil }
        }
        guard let spec = elements.first, let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let head = spec[spec.startIndex..<dash], tail = spec[(dash + 1)...]
        if head.isEmpty {
            guard let count = number(tail) else { return nil }
            return .suffix(count: count)
        }
        guard let first = number(head) else { return nil }
        if tail.isEmpty { return .from(first: first, last: nil) }
        guard let last = number(tail), last >= first else { return nil }
        return .from(first: first, last: last)
    }

    /// §14.1.2: satisfiable when the first byte is inside the body, or a non-zero suffix.
    public func resolve(length: Int) -> ByteRangeSelection {
        switch self {
        case .from(let first, let last):
            guard first < length else { return .unsatisfiable }
            return .partial(first: first, last: min(last ?? Int.max, length - 1))
        case .suffix(let count):
            guard count > 0 else { return .unsatisfiable }
            // An empty body has no byte to send: the whole (empty) body, §14.1.3.
            guard length > 0 else { return .full }
            return .partial(first: max(0, length - count), last: length - 1)
        }
    }

    /// 1*DIGIT, saturating; nil for anything else (signs, spaces inside, empty).
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = o1 || o2 ? Int.max : sum
        }
        return value
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
    private static func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}
