import GrandstandCore
import GrandstandRuntime
import HTTPServer
import GrandstandServing

/// The catalog's HTTP answers, shared by the fan listener (`/catalog…`) and management
/// (`/api/v1/catalog…`): search (also at StreamPlay's paths `/catalog/fixtures[/SPORT]/p/PARTNER`),
/// batch, isLive polling (many ids, or one id as the SDK's isLive URL). Same engine, same errors
/// (400 naming the field, operator or parameter; docs/catalog.md).
struct CatalogRoutes: Sendable {
    let feed: CatalogFeed
    let gateway: Gateway
    let poller: CatalogLivePoller

    /// The channels served now, with their live state, for `isLive`.
    var liveChannels: [LiveChannel] {
        gateway.channels.map { channel in
            LiveChannel(id: channel.id, name: channel.name, live: gateway.videoChannel(channel.id)?.summary.live ?? false)
        }
    }

    /// The request's arguments in the order sent, repeated names kept (from the raw target when
    /// the listener gives it), plus the partner and sport of StreamPlay's path form.
    static func arguments(_ request: HTTPRequest) throws(CatalogQueryError) -> [(key: String, value: String)] {
        var arguments: [(key: String, value: String)]
        if let target = request.target, let mark = target.firstIndex(of: "?") {
            arguments = try CatalogQuery.arguments(queryString: String(target[target.index(after: mark)...]))
        } else {
            arguments = request.query.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        }
        if let partner = request.parameters["partner"] { arguments.append(("partner", partner)) }
        if let sport = request.parameters["sport"] { arguments.append(("sport", sport)) }
        return arguments
    }

    /// `rest` is the path after the prefix: "", "/fixtures", "/batch", "/live", "/live/ID".
    func handle(_ request: HTTPRequest, rest: String, responder: HTTPResponder? = nil) -> HTTPResponse? {
        do {
            switch (rest, request.method) {
            case ("", "GET"), ("", "HEAD"), ("/fixtures", "GET"), ("/fixtures", "HEAD"):
                let query = try CatalogQuery.parse(Self.arguments(request))
                return Self.json(feed.catalog.search(query, channels: liveChannels, external: poller.readings).json)
            case ("/batch", "GET"), ("/batch", "HEAD"):
                let queries = try CatalogBatch.parse(arguments: Self.arguments(request))
                return Self.json(CatalogBatch.answer(queries, in: feed.catalog, channels: liveChannels, external: poller.readings))
            case ("/batch", "POST"):
                return Self.json(CatalogBatch.answer(try CatalogBatch.parse(json: request.body), in: feed.catalog, channels: liveChannels,
                                                     external: poller.readings))
            case ("/live", "GET"), ("/live", "HEAD"):
                for key in request.query.keys where key != "ids" { throw CatalogQueryError.unknownParameter(key) }
                let ids = (request.query["ids"] ?? "").split(separator: ",").map(String.init)
                let catalog = feed.catalog, channels = liveChannels
                _ = try CatalogLivePoll.answer(catalog, ids: ids, channels: [], now: 0)   // refuses bad ids before any poll
                return live(ids: ids, catalog: catalog, channels: channels, responder: responder) { external in
                    let now = Double(SystemClock().wallNanoseconds()) / 1e9
                    do throws(CatalogQueryError) {
                        return Self.json(try CatalogLivePoll.answer(catalog, ids: ids, channels: channels, now: now, external: external))
                    } catch {
                        return .json(error.json.encoded + "\n", status: 400)
                    }
                }
            case ("/live/", "GET"), ("/live/", "HEAD"):
                return single(request.parameters["id"] ?? "", responder: responder)
            case ("", _), ("/fixtures", _), ("/live", _), ("/live/", _):
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

    /// The SDK's isLive URL for one fixture (StreamPlayIsLiveService.addIsLiveCall(url:…)):
    /// `{"isLive": …, "pollingFrequency": …}` as StreamPlayIsLiveModel reads it; 404 for an
    /// unknown id and 502 when its external live URL could not be polled, with
    /// `{"liveStreamID", "errorCode", "messages"}` (StreamPlayIsLiveErrorModel).
    private func single(_ id: String, responder: HTTPResponder?) -> HTTPResponse? {
        let catalog = feed.catalog, channels = liveChannels
        guard let fixture = catalog.fixture(id: id) else {
            let body = JSONValue.object([("liveStreamID", .string(id)), ("errorCode", .number(404)),
                                         ("messages", .array([.string("no fixture \"\(id)\" in the catalog")]))])
            return .json(body.encoded + "\n", status: 404)
        }
        return live(ids: [id], catalog: catalog, channels: channels, responder: responder) { external in
            let now = Double(SystemClock().wallNanoseconds()) / 1e9
            let state = CatalogLivePoll.state(fixture, channels: channels, external: external, now: now)
            if let failure = state.failure {
                let body = JSONValue.object([("liveStreamID", .string(id)), ("errorCode", .number(Double(failure.code))),
                                             ("messages", .array([.string(failure.message)]))])
                return .json(body.encoded + "\n", status: 502)
            }
            return Self.json(.object([("isLive", .bool(state.isLive)), ("pollingFrequency", .number(Double(state.pollingFrequency))),
                                      ("liveStreamID", .string(id)), ("channel", state.channel.map { .string($0.id) } ?? .null),
                                      ("liveURL", state.url.map(JSONValue.string) ?? .null)]))
        }
    }

    /// Answers with the external readings `ids` need: at once when none is needed or all are
    /// fresh, else later through `responder` once the poller has them (the engine's thread never
    /// waits on an origin).
    private func live(ids: [String], catalog: Catalog, channels: [LiveChannel], responder: HTTPResponder?,
                      answer: @escaping @Sendable ([String: ExternalLive]) -> HTTPResponse) -> HTTPResponse? {
        let urls = Array(CatalogLivePoll.externalURLs(catalog, ids: ids, channels: channels).prefix(CatalogLivePoller.maximumPerRequest))
        guard !urls.isEmpty else { return answer([:]) }
        if let fresh = poller.fresh(urls) { return answer(fresh) }
        guard let responder else { return answer(poller.readings) }
        poller.poll(urls) { readings in responder.respond(answer(readings)) }
        return nil
    }

    private static func json(_ value: JSONValue) -> HTTPResponse {
        var response = HTTPResponse.json(value.encoded + "\n")
        response.headers.append(("Cache-Control", "no-cache"))
        return response
    }

    /// The routes under `prefix` (`/catalog` on the fan listener, `/api/v1/catalog` on
    /// management): search (also StreamPlay's paths), batch GET, live.
    func readRoutes(prefix: String) -> [HTTPRoute] {
        let search: HTTPDeferringHandler = { request, _ in handle(request, rest: "/fixtures") }
        return [
            HTTPRoute(["GET"], prefix, deferring: { request, _ in handle(request, rest: "") }),
            HTTPRoute(["GET"], prefix + "/fixtures", deferring: search),
            HTTPRoute(["GET"], prefix + "/fixtures/p/{partner}", deferring: search),
            HTTPRoute(["GET"], prefix + "/fixtures/{sport}/p/{partner}", deferring: search),
            HTTPRoute(["GET"], prefix + "/batch", deferring: { request, _ in handle(request, rest: "/batch") }),
            HTTPRoute(["GET"], prefix + "/live", deferring: { request, responder in handle(request, rest: "/live", responder: responder) }),
            HTTPRoute(["GET"], prefix + "/live/{id}", deferring: { request, responder in handle(request, rest: "/live/", responder: responder) }),
        ]
    }

    /// Management routes: the read routes, batch POST, the feed's status, a refresh, an upload.
    var managementRoutes: [HTTPRoute] {
        readRoutes(prefix: "/api/v1/catalog") + [
            HTTPRoute("POST", "/api/v1/catalog/batch") { handle($0, rest: "/batch") ?? .text(500, "no answer") },
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
