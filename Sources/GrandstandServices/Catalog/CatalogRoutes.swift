import GrandstandCore
import GrandstandRuntime
import HTTPServer
import GrandstandServing

/// The catalog's HTTP answers, shared by the fan listener (`/catalog…`) and management
/// (`/api/v1/catalog…`): search, batch, isLive polling. Same engine, same errors (400 naming
/// the field, operator or parameter; docs/catalog.md).
struct CatalogRoutes: Sendable {
    let feed: CatalogFeed
    let gateway: Gateway

    /// The channels served now, with their live state, for `isLive`.
    var liveChannels: [LiveChannel] {
        gateway.channels.map { channel in
            LiveChannel(id: channel.id, name: channel.name, live: gateway.videoChannel(channel.id)?.summary.live ?? false)
        }
    }

    /// `rest` is the path after the prefix: "", "/batch", "/live".
    func handle(_ request: HTTPRequest, rest: String) -> HTTPResponse {
        let arguments = request.query.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        do {
            switch (rest, request.method) {
            case ("", "GET"), ("", "HEAD"):
                let query = try CatalogQuery.parse(arguments)
                return Self.json(feed.catalog.search(query, channels: liveChannels).json)
            case ("/batch", "GET"), ("/batch", "HEAD"):
                return Self.json(CatalogBatch.answer(try CatalogBatch.parse(arguments: arguments), in: feed.catalog, channels: liveChannels))
            case ("/batch", "POST"):
                return Self.json(CatalogBatch.answer(try CatalogBatch.parse(json: request.body), in: feed.catalog, channels: liveChannels))
            case ("/live", "GET"), ("/live", "HEAD"):
                for key in request.query.keys where key != "ids" { throw CatalogQueryError.unknownParameter(key) }
                let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
                let now = Double(SystemClock().wallNanoseconds()) / 1e9
                return Self.json(try CatalogLivePoll.answer(feed.catalog, ids: ids, channels: liveChannels, now: now))
            case ("", _), ("/live", _):
                return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8))
            case ("/batch", _):
                return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD, POST")], body: Array("method not allowed\n".utf8))
            default:
                return .text(404, "not found")
            }
        } catch let error as CatalogQueryError {
            return .json(error.json.encoded + "\n", status: 400)
        } catch {
            return .text(500, "\(error)")
        }
    }

    private static func json(_ value: JSONValue) -> HTTPResponse {
        var response = HTTPResponse.json(value.encoded + "\n")
        response.headers.append(("Cache-Control", "no-cache"))
        return response
    }

    /// Management routes: search, batch (GET and POST), live, the feed's status, a refresh.
    var managementRoutes: [HTTPRoute] {
        [
            HTTPRoute("GET", "/api/v1/catalog") { handle($0, rest: "") },
            HTTPRoute("GET", "/api/v1/catalog/batch") { handle($0, rest: "/batch") },
            HTTPRoute("POST", "/api/v1/catalog/batch") { handle($0, rest: "/batch") },
            HTTPRoute("GET", "/api/v1/catalog/live") { handle($0, rest: "/live") },
            HTTPRoute("GET", "/api/v1/catalog/status") { _ in .json(feed.statusJSON.encoded + "\n") },
            HTTPRoute("POST", "/api/v1/catalog/refresh") { _ in
                feed.refresh()
                return .json(feed.statusJSON.encoded + "\n")
            },
            HTTPRoute("PUT", "/api/v1/catalog/feed") { request in
                do throws(CatalogFeedDecoder.FeedError) {
                    let count = try feed.update(bytes: request.body, source: "management upload")
                    return .json(JSONValue.object([("fixtures", .number(Double(count)))]).encoded + "\n")
                } catch {
                    return .json(JSONValue.object([("error", .string(error.description)), ("path", .string(error.path.description))]).encoded + "\n", status: 400)
                }
            },
        ]
    }
}
