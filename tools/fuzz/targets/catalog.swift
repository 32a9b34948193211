// The catalog: a query string (first line) parsed and run against a feed (the rest) decoded
// from any bytes, in the gateway's syntax or StreamPlay's (`q=(a:b AND (c:1 OR d:1))`); plus
// the batch form, the ISO date parser, the isLive poll answer with external readings, and the
// reading of a live URL's answer (the rest as a playlist or isLive JSON). Refusals always say why.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    let split = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
    let queryText = String(decoding: bytes[..<split], as: UTF8.self)
    let feedBytes = Array(bytes[(split == bytes.endIndex ? split : split + 1)...])
    _ = CatalogDate.parse(queryText)
    var catalog = Catalog()
    do {
        let result = try CatalogFeedDecoder.decode(feedBytes)
        require(Set(result.fixtures.map(\.id)).count == result.fixtures.count, "fixture ids are unique")
        catalog = Catalog(result.fixtures)
    } catch {
        require(!error.description.isEmpty, "a rejected feed says why")
    }
    let channels = [LiveChannel(id: "bowl-cam-1", name: "Bowl Cam 1", live: true)]
    // Every external URL of the feed: live, not live, or failed, by its length.
    var external: [String: ExternalLive] = [:]
    for fixture in catalog.fixtures {
        guard let url = fixture.externalLiveURL else { continue }
        switch url.utf8.count % 3 {
        case 0: external[url] = .live(true, pollingFrequency: url.utf8.count % 50)
        case 1: external[url] = .live(false, pollingFrequency: nil)
        default: external[url] = .failed(code: 503, message: "down")
        }
    }
    do {
        let query = try CatalogQuery.parse(queryString: queryText)
        let page = catalog.search(query, channels: channels, external: external)
        require(page.items.count <= query.limit, "a page holds at most limit items")
        require(page.total <= catalog.fixtures.count, "total counts fixtures")
        let json = page.json
        require(json["fixtures"] == json["items"], "fixtures and items are the same list")
        _ = json.encoded
    } catch {
        require(!error.name.isEmpty && !error.description.isEmpty, "a refused query names the problem")
    }
    if let batch = try? CatalogBatch.parse(json: Array(queryText.utf8)) {
        _ = CatalogBatch.answer(batch, in: catalog, channels: channels, external: external).encoded
    }
    let ids = queryText.split(separator: ",").prefix(5).map(String.init)
    if let answer = try? CatalogLivePoll.answer(catalog, ids: ids, channels: channels, now: 1_754_006_400, external: external),
       case .number(let next)? = answer["nextPollSeconds"] {
        require(next >= 0 && next <= Double(CatalogLivePoll.idleSeconds), "the next poll is within the idle interval")
    }
    _ = CatalogLivePoll.externalURLs(catalog, ids: ids, channels: channels)
    switch ExternalLive.read(status: 200, body: feedBytes) {
    case .variant(let reference): _ = ExternalLive.resolve(reference, against: "http://origin.example:8000/live/master.m3u8?t=1")
    case .result(.failed(_, let message)): require(!message.isEmpty, "a failed reading says why")
    case .result: break
    }
    _ = ExternalLive.resolve(queryText, against: queryText)
}
