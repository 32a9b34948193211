import Testing
@testable import GrandstandCore

/// The per-item token hook in the journal: kept by `journalJSON`, absent from the API's `json`.
@Suite struct CacheTokenTests {
    @Test func theJournalKeepsTokensTheAPIDoesNot() throws {
        var item = CacheItem(id: "a", source: .origin, state: .queued, now: 5)
        item.originHeaders = ["X-Item-Token": "t-1", "Authorization": "Bearer x"]
        item.originQuery = "sig=9"
        #expect(item.json["token"] == nil)
        let journal = item.journalJSON
        let back = try #require(CacheItem(json: journal))
        #expect(back.originHeaders == item.originHeaders)
        #expect(back.originQuery == "sig=9")
        #expect(back == item)
        let replayed = CacheJournal.replay(CacheJournal.snapshot(["a": item]))
        #expect(replayed.items["a"]?.originHeaders["X-Item-Token"] == "t-1")
    }

    @Test func anItemWithoutTokensHasOneForm() {
        let item = CacheItem(id: "b", source: .fileChannel("c"), state: .cached, now: 1)
        #expect(item.journalJSON == item.json)
    }
}
