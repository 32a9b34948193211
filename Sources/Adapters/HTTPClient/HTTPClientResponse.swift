/// A complete response: status, headers (names lowercased), and the body with any chunked
/// transfer coding removed.
public struct HTTPClientResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Parses a whole HTTP/1.1 response as read until the server closed the connection.
    public static func parse(_ bytes: [UInt8]) -> HTTPClientResponse? {
        guard let end = headerEnd(bytes), let (status, headers) = parseHead(bytes[..<end]) else { return nil }
        var body = Array(bytes[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            guard let decoded = dechunk(body) else { return nil }
            body = decoded
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { return nil }
            body = Array(body.prefix(length))
        }
        return HTTPClientResponse(status: status, headers: headers, body: body)
    }

    /// The status code and headers (names lowercased) of a response head without its blank line.
    static func parseHead(_ head: ArraySlice<UInt8>) -> (Int, [String: String])? {
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.") else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[1].count == 3, let status = Int(parts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers[line[..<colon].lowercased()] = String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }
        return (status, headers)
    }

    static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13
            && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Removes chunked transfer coding (RFC 9112 §7.1); nil when truncated or malformed.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 })
            else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText.trimmingSpaces, radix: 16), size >= 0 else { return nil }
            index = lineEnd + 2
            if size == 0 { return out }
            guard bytes.count >= index + size + 2 else { return nil }
            out += bytes[index..<(index + size)]
            index += size + 2
        }
    }
}

private extension Substring {
    var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
