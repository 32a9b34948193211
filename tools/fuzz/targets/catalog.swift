// The catalog: a query string (first line) parsed and run against a feed (the rest) decoded
// from any bytes; plus the batch form and the ISO date parser. Refusals always say why.
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
    do {
        let query = try CatalogQuery.parse(queryString: queryText)
        let page = catalog.search(query, channels: channels)
        require(page.items.count <= query.limit, "a page holds at most limit items")
        require(page.total <= catalog.fixtures.count, "total counts fixtures")
        _ = page.json.encoded
    } catch {
        require(!error.name.isEmpty && !error.description.isEmpty, "a refused query names the problem")
    }
    if let batch = try? CatalogBatch.parse(json: Array(queryText.utf8)) {
        _ = CatalogBatch.answer(batch, in: catalog, channels: channels).encoded
    }
    let ids = queryText.split(separator: ",").prefix(5).map(String.init)
    _ = try? CatalogLivePoll.answer(catalog, ids: ids, channels: channels, now: 1_754_006_400)
}
