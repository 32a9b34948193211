/// The Reporter URL split for a plain HTTP/1.1 POST: `http://host[:port][/path][?query]`.
/// No TLS in the gateway: `https` is refused with a reason (the collector sits on the venue LAN
/// or behind a local TLS-terminating relay; docs/reporting.md).
public struct UploadTarget: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// Path and query as sent in the request line, at least "/".
    public var target: String

    public init(host: String, port: UInt16, target: String) {
        self.host = host
        self.port = port
        self.target = target
    }

    /// The URL parsed, or the reason it cannot be used.
    public static func parse(_ url: String) -> Result<UploadTarget, UploadTargetProblem> {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") {
            return .failure(UploadTargetProblem("\"\(url)\": https is not supported (no TLS in the gateway); use an http:// collector or relay"))
        }
        guard lower.hasPrefix("http://") else {
            return .failure(UploadTargetProblem("\"\(url)\" is not an http:// URL"))
        }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<slash]
        var target = String(rest[slash...])
        if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else {
            return .failure(UploadTargetProblem("\"\(url)\": credentials in the URL are not supported"))
        }
        var host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                return .failure(UploadTargetProblem("\"\(url)\": unterminated [IPv6] host"))
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(UploadTargetProblem("\"\(url)\": junk after [IPv6] host")) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else {
            return .failure(UploadTargetProblem("\"\(url)\" has no host"))
        }
        // Brackets only around a whole IPv6 host, colons only inside them (found by the `query`
        // fuzz target: `http://a[fd00::1]:80/` gave a host that printed as another URL).
        guard !host.contains(where: { $0 == "[" || $0 == "]" }), authority.hasPrefix("[") || !host.contains(":") else {
            return .failure(UploadTargetProblem("\"\(url)\": a host with brackets or colons must be a whole [IPv6] address"))
        }
        var port: UInt16 = 80
        if let portText {
            guard let value = UInt16(portText), value > 0 else {
                return .failure(UploadTargetProblem("\"\(url)\": \"\(portText)\" is not a port 1...65535"))
            }
            port = value
        }
        guard !target.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" || $0 == "#" }) else {
            return .failure(UploadTargetProblem("\"\(url)\": the path may not contain spaces, line breaks or a fragment"))
        }
        return .success(UploadTarget(host: String(host), port: port, target: target))
    }

    public var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostText):\(port)\(target)"
    }
}

/// Why a Reporter URL was refused (config issue text).
public struct UploadTargetProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
