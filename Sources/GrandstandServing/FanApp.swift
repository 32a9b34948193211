import GrandstandCore
import HTTPServer

/// The fan app (docs/fan-app.md): the files of web/fan/, embedded by tools/fan-assets.py as
/// `FanAssets`, served at `/` and `/index.html` (index.html) and `/NAME` (player.js, app.js, app.css). Each
/// is kept plain and gzip-compressed (made once, at first use): a client whose Accept-Encoding
/// takes gzip gets `Content-Encoding: gzip`; every answer says `Vary: Accept-Encoding`.
enum FanApp {
    struct Asset: Sendable {
        let type: String
        let plain: [UInt8]
        let gzip: [UInt8]
    }

    static let assets: [String: Asset] = {
        var assets: [String: Asset] = [:]
        for file in FanAssets.files {
            let bytes = Array(file.text.utf8)
            assets[file.name] = Asset(type: file.type, plain: bytes, gzip: ContentCoding.gzip(bytes))
        }
        return assets
    }()

    /// The routes: `/` and `/index.html`, and `/NAME` for every other file.
    static var routes: [HTTPRoute] {
        [HTTPRoute("GET", "/") { response("index.html", for: $0) }, HTTPRoute("GET", "/index.html") { response("index.html", for: $0) }]
            + FanAssets.files.map(\.name).filter { $0 != "index.html" }.map { name in HTTPRoute("GET", "/" + name) { response(name, for: $0) } }
    }

    /// File `name` for `request`: gzip when its Accept-Encoding takes it (revalidated by ETag, which
    /// `FanResponse.finish` makes from the body, so each encoding has its own).
    static func response(_ name: String, for request: HTTPRequest) -> HTTPResponse {
        guard let asset = assets[name] else { return .text(404, "not found") }
        let gzip = acceptsGzip(request.header("Accept-Encoding"))
        var headers: [(name: String, value: String)] = [("Content-Type", asset.type), ("Cache-Control", "no-cache"), ("Vary", "Accept-Encoding")]
        if gzip { headers.append(("Content-Encoding", "gzip")) }
        return HTTPResponse(status: 200, headers: headers, body: gzip ? asset.gzip : asset.plain)
    }

    /// True when an Accept-Encoding value (RFC 9110 §12.5.3) accepts gzip: `gzip`, `x-gzip` or
    /// `*` with a q-value above 0 (an explicit `gzip;q=0` refuses it even when `*` is listed).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var star: Bool?
        for item in header.split(separator: ",") {
            let pieces = item.split(separator: ";").map { $0.trimmingCharacters(in: " \t").lowercased() }
            guard let coding = pieces.first else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() where parameter.hasPrefix("q=") { quality = Double(parameter.dropFirst(2)) ?? 0 }
            if coding == "gzip" || coding == "x-gzip" { return quality > 0 }
            if coding == "*" { star = quality > 0 }
        }
        return star ?? false
    }
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let skip = Set(set)
        return String(drop { skip.contains($0) }.reversed().drop { skip.contains($0) }.reversed())
    }
}
