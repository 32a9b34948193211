/// Removes chunked transfer coding (RFC 9112 §7.1) from a body as it arrives, for streamed
/// responses (Server-Sent Events) that never end on their own.
public struct ChunkedDecoder: Sendable {
    private enum State: Sendable { case size, data(Int), dataEnd, trailer, done }

    private var state = State.size
    private var line: [UInt8] = []

    public init() {}

    /// True after the last (zero-size) chunk and its trailer.
    public var isDone: Bool { if case .done = state { true } else { false } }

    /// The body bytes in `bytes`; nil when the coding is malformed.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .size, .trailer:
                let byte = bytes[index]
                index += 1
                guard byte == 10 else { line.append(byte); continue }
                if line.last == 13 { line.removeLast() }
                let text = String(decoding: line, as: UTF8.self)
                line = []
                if case .trailer = state {
                    if text.isEmpty { state = .done }
                    continue
                }
                guard let size = Int(text.prefix { $0 != ";" }.trimmingCharacters(), radix: 16), size >= 0 else { return nil }
                state = size == 0 ? .trailer : .data(size)
            case .data(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                out += bytes[index..<(index + count)]
                index += count
                state = remaining - count == 0 ? .dataEnd : .data(remaining - count)
            case .dataEnd:
                let byte = bytes[index]
                index += 1
                if byte == 13 { continue }
                guard byte == 10 else { return nil }
                state = .size
            case .done:
                return out
            }
        }
        return out
    }
}

private extension Substring {
    func trimmingCharacters() -> String { String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) }
}
