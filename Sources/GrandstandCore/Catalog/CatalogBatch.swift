/// Several catalog queries answered at once: a JSON array of query strings
/// (`["q=featured:isTrue&limit=5", "q=competition:equals:Cup"]`), or the GET form
/// `batch?query1=ENCODED&query2=…` where each value is one percent-encoded query string.
public enum CatalogBatch {
    public static let maximumQueries = 20

    public static func parse(json bytes: [UInt8]) throws(CatalogQueryError) -> [CatalogQuery] {
        guard let document = try? JSONParser.parse(bytes), case .array(let items) = document else {
            throw .badParameter("body", value: "", expected: "a JSON array of query strings")
        }
        var texts: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw .inBatch(index: index, .badParameter("query", value: item.encoded, expected: "a query string"))
            }
            texts.append(text)
        }
        return try parse(texts)
    }

    /// The GET form's arguments: `query1`…`query20`, answered in number order.
    public static func parse(arguments: [(key: String, value: String)]) throws(CatalogQueryError) -> [CatalogQuery] {
        var numbered: [(Int, String)] = []
        for (key, value) in arguments {
            guard key.hasPrefix("query"), let number = Int(key.dropFirst("query".count)), (1...maximumQueries).contains(number) else {
                throw .unknownParameter(key)
            }
            numbered.append((number, value))
        }
        return try parse(numbered.sorted { $0.0 < $1.0 }.map(\.1))
    }

    static func parse(_ texts: [String]) throws(CatalogQueryError) -> [CatalogQuery] {
        guard !texts.isEmpty, texts.count <= maximumQueries else {
            throw .badParameter("queries", value: "\(texts.count)", expected: "1...\(maximumQueries) queries")
        }
        var queries: [CatalogQuery] = []
        for (index, text) in texts.enumerated() {
            do { queries.append(try CatalogQuery.parse(queryString: text)) } catch { throw .inBatch(index: index, error) }
        }
        return queries
    }

    public static func answer(_ queries: [CatalogQuery], in catalog: Catalog, channels: [LiveChannel],
                              external: [String: ExternalLive] = [:]) -> JSONValue {
        .object([("results", .array(queries.map { catalog.search($0, channels: channels, external: external).json }))])
    }
}
