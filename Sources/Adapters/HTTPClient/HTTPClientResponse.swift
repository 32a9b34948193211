/// A complete response: status, headers (names lowercased), and the body with any chunked
/// transfer coding removed (by libcurl).
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
}
