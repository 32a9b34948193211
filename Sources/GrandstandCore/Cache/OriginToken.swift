/// What the token hook adds to one origin request: headers, cookies (one `Cookie:` header) and a
/// query appended to the URL (docs/cache.md "Token hook").
public struct OriginToken: Sendable, Equatable {
    public var headers: [String: String] = [:]
    public var cookies: [String: String] = [:]
    public var query: String?

    public init(headers: [String: String] = [:], cookies: [String: String] = [:], query: String? = nil) {
        self.headers = headers
        self.cookies = cookies
        self.query = query
    }

    public var isEmpty: Bool { headers.isEmpty && cookies.isEmpty && query == nil }

    /// `other` over this one: its headers and cookies win by name, its query is appended after ours.
    public func layered(under other: OriginToken) -> OriginToken {
        var out = self
        out.headers.merge(other.headers) { $1 }
        out.cookies.merge(other.cookies) { $1 }
        switch (query, other.query) {
        case (let mine?, let theirs?): out.query = mine + "&" + theirs
        case (nil, let theirs): out.query = theirs
        default: break
        }
        return out
    }

    /// The request headers, sorted by name, with the cookies joined into one `Cookie` header
    /// (after a `Cookie` header given as such).
    public var requestHeaders: [(String, String)] {
        var list = headers.filter { $0.key.lowercased() != "cookie" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let given = headers.first { $0.key.lowercased() == "cookie" }?.value
        let pairs = cookies.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }
        let cookie = ((given.map { [$0] } ?? []) + pairs).joined(separator: "; ")
        if !cookie.isEmpty { list.append(("Cookie", cookie)) }
        return list
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if !headers.isEmpty { members.append(("headers", Self.object(headers))) }
        if !cookies.isEmpty { members.append(("cookies", Self.object(cookies))) }
        if let query { members.append(("query", .string(query))) }
        return .object(members)
    }

    static func object(_ map: [String: String]) -> JSONValue {
        .object(map.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }
}

/// The token hook of one layer (the origin's config, or one item's POST): a token for every
/// request, and per file type one that replaces it whole for requests of that type. Types are
/// `metadata` (the metadata document), `key` (HLS keys) or a lowercase file extension of the
/// URL's path (`m3u8`, `ts`, `m4s`, `mp4`, `vtt`, `jpg`…). Pure.
public struct OriginTokenHook: Sendable, Equatable {
    public var all = OriginToken()
    public var perType: [String: OriginToken] = [:]

    public init(all: OriginToken = OriginToken(), perType: [String: OriginToken] = [:]) {
        self.all = all
        self.perType = perType
    }

    public var isEmpty: Bool { all.isEmpty && perType.isEmpty }

    /// The token for a request of `type`: its own entry, else the one for all.
    public func token(for type: String) -> OriginToken { perType[type] ?? all }

    /// The type of a request for `url`: the lowercase extension of its path's last segment
    /// ("" when it has none, which only the token for all covers).
    public static func fileType(of url: String) -> String {
        var path = Substring(url.prefix { $0 != "?" && $0 != "#" })
        if let scheme = path.firstRange(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest[(rest.firstIndex(of: "/") ?? rest.endIndex)...]
        }
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: "."), last.index(after: dot) < last.endIndex else { return "" }
        return last[last.index(after: dot)...].lowercased()
    }

    /// The journal's and the API's form: the token's members, plus `perType` when there is one.
    public var json: JSONValue {
        guard case .object(var members) = all.json else { return all.json }
        if !perType.isEmpty {
            members.append(("perType", .object(perType.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })))
        }
        return .object(members)
    }

    /// Type names: `metadata`, `key`, or 1-10 lowercase letters and digits (a file extension).
    public static func acceptsType(_ name: String) -> Bool {
        if name == "metadata" || name == "key" { return true }
        guard (1...10).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
    }
}
