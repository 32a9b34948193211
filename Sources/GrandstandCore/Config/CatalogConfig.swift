/// The `catalog` section: where the fixtures feed comes from (a local file, or an origin URL
/// polled over HTTP) and how often it is re-read (docs/catalog.md "Configuration"). A feed can
/// also arrive on any file channel as the file named `feedFile` (default `catalog.json`).
extension GatewayConfig {
    public struct CatalogSource: Sendable, Equatable {
        /// An absolute path of a feed file, re-read when it changes.
        public var feedPath: String?
        /// `http://host[:port]/path` of a feed at the origin.
        public var feedURL: String?
        /// How often the file or URL is checked (seconds; 5...86400, default 60).
        public var refreshSeconds = 60
        /// The Content-Location path on a file channel that carries the feed; nil: none.
        public var feedFile: String? = "catalog.json"

        public init() {}
    }

    static func decodeCatalog(_ root: JSONObjectView, _ reader: inout JSONReader) -> CatalogSource {
        var catalog = CatalogSource()
        guard let object = reader.object(root["catalog"], at: root.path("catalog"), known: ["feedPath", "feedURL", "refreshSeconds", "feedFile"]) else {
            return catalog
        }
        if let path = reader.string(object["feedPath"], at: object.path("feedPath")) {
            if path.hasPrefix("/") { catalog.feedPath = path } else { reader.report(object.path("feedPath"), "\"\(path)\" is not an absolute path") }
        }
        if let url = reader.string(object["feedURL"], at: object.path("feedURL")) {
            switch UploadTarget.parse(url) {
            case .success: catalog.feedURL = url
            case .failure(let problem): reader.report(object.path("feedURL"), problem.description)
            }
        }
        if catalog.feedPath != nil && catalog.feedURL != nil {
            reader.report(object.path("feedURL"), "give feedPath or feedURL, not both")
        }
        if let file = object["feedFile"] {
            if file == .null { catalog.feedFile = nil } else { catalog.feedFile = reader.string(file, at: object.path("feedFile")) ?? catalog.feedFile }
        }
        catalog.refreshSeconds = reader.integer(object["refreshSeconds"], at: object.path("refreshSeconds"), in: 5...86_400) ?? catalog.refreshSeconds
        return catalog
    }
}
