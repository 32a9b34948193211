/// Reading a token hook from JSON (the config's `cache.origin`, a POST /api/v1/items body, the
/// journal): every bad value is reported with its JSON path, so neither a header that would split
/// a request nor a cookie that would inject another one reaches the origin.
extension OriginTokenHook {
    /// The members a token hook adds to the object it lives in.
    public static let members: Set<String> = ["headers", "cookies", "query", "perType"]

    /// `headers`, `cookies`, `query` and `perType` of `object`; bad values are reported and left out.
    public static func decode(_ object: JSONObjectView, _ reader: inout JSONReader) -> OriginTokenHook {
        var hook = OriginTokenHook(all: decodeToken(object, &reader))
        guard let types = object["perType"] else { return hook }
        guard case .object(let entries) = types else {
            reader.report(object.path("perType"), "expected an object of file types to {headers, cookies, query}, got \(types.typeName)")
            return hook
        }
        for (type, _) in entries {
            let path = object.path("perType").appending(type)
            guard acceptsType(type) else {
                reader.report(path, "\"\(type)\" is not a file type: metadata, key, or a lowercase extension (m3u8, ts, m4s, mp4…)")
                continue
            }
            let known: Set<String> = ["headers", "cookies", "query"]
            guard let entry = reader.object(types[type], at: path, known: known) else { continue }
            hook.perType[type] = decodeToken(entry, &reader)
        }
        return hook
    }

    static func decodeToken(_ object: JSONObjectView, _ reader: inout JSONReader) -> OriginToken {
        var token = OriginToken()
        token.headers = pairs(object, "headers", &reader, name: isHeaderName, value: isHeaderValue,
                              rule: "a header name (no colon, space or control character) to a value without line breaks")
        token.cookies = pairs(object, "cookies", &reader, name: isCookieName, value: isCookieValue,
                              rule: "a cookie name (no = ; , space or quote) to a value without ; , space, quote or backslash")
        if let query = reader.string(object["query"], at: object.path("query")) {
            if query.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0 != "#" }), !query.hasPrefix("?") {
                token.query = query
            } else {
                reader.report(object.path("query"), "\"\(query)\" is not a query string (name=value&…, no ?, # or spaces)")
            }
        }
        return token
    }

    private static func pairs(_ object: JSONObjectView, _ key: String, _ reader: inout JSONReader, name: (String) -> Bool,
                              value: (String) -> Bool, rule: String) -> [String: String] {
        guard let given = object[key] else { return [:] }
        guard case .object(let members) = given else {
            reader.report(object.path(key), "expected an object of \(key) names to values, got \(given.typeName)")
            return [:]
        }
        var out: [String: String] = [:]
        for (member, item) in members {
            let path = object.path(key).appending(member)
            guard let text = reader.string(item, at: path, nonEmpty: false) else { continue }
            guard name(member), value(text) else {
                reader.report(path, "expected \(rule)")
                continue
            }
            out[member] = text
        }
        return out
    }

    static func isHeaderName(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != ":" }
    }

    static func isHeaderValue(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F || $0 == "\t" }
    }

    static func isCookieName(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !"=;,\"\\".unicodeScalars.contains($0) }
    }

    static func isCookieValue(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !";,\"\\".unicodeScalars.contains($0) }
    }

    /// The token hook of a request body (`$`), e.g. POST /api/v1/items.
    public static func decode(document: JSONValue, _ reader: inout JSONReader) -> OriginTokenHook {
        decode(JSONObjectView(path: .root, value: document), &reader)
    }

    /// Parses the journal's form as written (it was validated when it was given, possibly by an
    /// older, laxer version: kept, not re-judged); missing members are empty.
    public init(journal json: JSONValue) {
        self.init(all: Self.token(journal: json))
        if case .object(let types)? = json["perType"] {
            for (type, entry) in types { perType[type] = Self.token(journal: entry) }
        }
    }

    private static func token(journal json: JSONValue) -> OriginToken {
        func strings(_ value: JSONValue?) -> [String: String] {
            guard case .object(let members)? = value else { return [:] }
            var out: [String: String] = [:]
            for (name, item) in members { if case .string(let text) = item { out[name] = text } }
            return out
        }
        var token = OriginToken(headers: strings(json["headers"]), cookies: strings(json["cookies"]))
        if case .string(let query)? = json["query"] { token.query = query }
        return token
    }
}
