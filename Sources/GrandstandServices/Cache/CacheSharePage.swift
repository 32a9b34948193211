import GrandstandCore
import HTTPServer

extension CacheFanRoutes {
    /// `GET /items/ID`: the item's share page on the fan listener, a small HTML page with its
    /// title, thumbnail and a player on its play URL, so a link passed between fans on the venue
    /// network plays from the box. 404 for an item a fan cannot play (no media, failed, deleted).
    func share(_ id: String) -> HTTPResponse {
        guard let item = cache.item(id), item.state != .failed, item.state != .deleted else { return .text(404, "no item \(id)") }
        let links = CacheItemLinks(item)
        guard let play = links.play else { return .text(404, "item \(id) has nothing to play yet") }
        let title = Self.escape(item.title ?? item.id)
        let poster = links.thumbnail.map { " poster=\"\(Self.escape($0))\"" } ?? ""
        let page = """
            <!doctype html>
            <html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title></head>
            <body><h1>\(title)</h1>
            <video controls playsinline\(poster) src="\(Self.escape(play))" style="max-width:100%"></video>
            <p><a href="\(Self.escape(play))">Play</a></p></body></html>

            """
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-cache")],
                            body: Array(page.utf8))
    }

    /// Text for HTML content and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
