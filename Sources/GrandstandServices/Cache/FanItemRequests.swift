import GrandstandCore
import HTTPServer
import Synchronization

/// The per-client buckets of fans' item requests, shared by every copy of the routes (a class:
/// a `Mutex` cannot live in a copyable struct).
final class FanRequestBuckets: Sendable {
    let buckets: Mutex<FanRequestLimiter>
    init(_ limiter: FanRequestLimiter) { buckets = Mutex(limiter) }
}

extension CacheFanRoutes {
    /// `POST /items` `{"id", "category"}` from a fan (Akamai PCD's app-side "download this
    /// item"; docs/cache.md "Fans' requests"): the item is fetched as if the operator had added
    /// it (202 with its `/items.json` entry) when `cache.fans` lets fans request that category
    /// (else 403; an item already held in a category fans may not request, 403 too) and the
    /// client address's hourly allowance has a request left (else 429 with `Retry-After`). Ids
    /// are checked as the management API checks them (400). Refused requests cost no allowance.
    func request(_ request: HTTPRequest) -> HTTPResponse {
        guard let fans, let limiter else { return .text(403, "fans cannot request items on this gateway") }
        guard let document = try? JSONParser.parse(request.body), case .string(let id)? = document["id"], CacheItem.acceptsContentID(id),
              case .string(let category)? = document["category"] else {
            return .text(400, "expected {\"id\":\"CONTENT-ID\",\"category\":\"CATEGORY\"} (id without slash, at most 200 bytes)")
        }
        guard fans.categories.contains(category) else {
            return .text(403, "fans may request \(fans.categories.joined(separator: ", ")), not \(category)")
        }
        if let held = cache.item(id), held.state != .deleted, !held.category.isEmpty, !fans.categories.contains(held.category) {
            return .text(403, "item \(id) is not one fans may request")
        }
        let client = request.clientHost ?? "-"
        let now = cache.clock.monotonicNanoseconds()
        if case .limited(let seconds) = limiter.buckets.withLock({ $0.admit(client: client, nowNanoseconds: now) }) {
            return HTTPResponse(status: 429, headers: [("Retry-After", String(seconds)), ("Content-Type", "text/plain; charset=utf-8")],
                                body: Array("too many requests from \(client): try again in \(seconds) s\n".utf8))
        }
        var add = ContentCache.AddRequest(id: id)
        add.category = category
        add.download = true   // a fan's request is the app's "download this": whatever itemDownloadBehavior says
        do {
            let item = try cache.add(add)
            return HTTPResponse(status: 202, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                                body: Array((Self.listing(item).encoded + "\n").utf8))
        } catch {
            return .text(409, "\(error)")
        }
    }
}
