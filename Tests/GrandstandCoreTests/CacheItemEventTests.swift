import GrandstandCore
import Testing

/// Item events as the download-to-go SDK defines them, derived from an item's changes, with
/// progress throttled per item. Time is passed in: a manual clock in nanoseconds.
struct CacheItemEventTests {
    static let second: Int64 = 1_000_000_000

    static func item(_ state: CacheItemState, files: Int = 0, error: CacheErrorCode? = nil) -> CacheItem {
        var item = CacheItem(id: "goal", source: .origin, category: "highlights", state: .metadataNotReceived, now: 0)
        item.restore(state)
        for index in 0..<files {
            item.put(CacheFile(path: "f\(index)", size: 10, sha256: String(repeating: "a", count: 64), storedNanoseconds: 0))
        }
        item.error = error
        item.errorDetail = error.map { _ in "GET https://cdn.example/x?sig=secret: 404" }
        return item
    }

    /// (before state, files before, after state, files after, eviction?) → the events' kinds.
    static let transitions: [(CacheItemState?, Int, CacheItemState, Int, Bool, [CacheItemEvent.Kind])] = [
        (nil, 0, .metadataNotReceived, 0, false, []),
        (.metadataNotReceived, 1, .discovered, 1, false, [.discovered]),
        // The service takes it on to queued in the same change.
        (.metadataNotReceived, 1, .queued, 1, false, [.discovered]),
        (nil, 0, .cached, 1, false, [.discovered, .downloaded]),
        (nil, 0, .discovered, 0, false, [.discovered]),
        (.discovered, 1, .queued, 1, false, []),
        (.queued, 1, .downloading, 1, false, [.downloadStarted]),
        (.idle, 1, .downloading, 1, false, [.downloadStarted]),
        (.downloading, 1, .downloading, 2, false, []),
        (.downloading, 3, .cached, 3, false, [.downloaded]),
        (.downloading, 3, .partiallyCached, 3, false, [.downloaded]),
        (.cached, 3, .partiallyCached, 2, false, []),
        (.downloading, 1, .failed, 1, false, [.failed]),
        (.metadataNotReceived, 0, .failed, 0, false, [.failed]),
        (.downloading, 2, .paused, 2, false, []),
        (.queued, 1, .idle, 1, false, []),
        (.cached, 3, .discovered, 0, true, [.evicted]),
        (.partiallyCached, 2, .discovered, 0, true, [.evicted]),
        (.cached, 3, .discovered, 0, false, [.deleted]),
        (.paused, 1, .discovered, 0, true, [.evicted]),
        (.cached, 3, .deleted, 0, false, [.deleted]),
        (.failed, 0, .deleted, 0, false, [.deleted]),
        (.deleted, 0, .deleted, 0, true, []),
        (.failed, 0, .discovered, 0, false, []),
    ]

    @Test(arguments: transitions.indices)
    func eachChangeSaysWhatTheSDKWould(_ index: Int) {
        let (from, filesBefore, to, filesAfter, eviction, expected) = Self.transitions[index]
        let before = from.map { Self.item($0, files: filesBefore) }
        let after = Self.item(to, files: filesAfter, error: to == .failed ? .contentIDDoesNotExist : nil)
        let events = CacheItemEvent.transition(before, after, removal: eviction ? .eviction : .request, wallNanoseconds: 7)
        #expect(events.map(\.kind) == expected, "\(String(describing: from)) → \(to)")
        #expect(events.allSatisfy { $0.id == "goal" && $0.category == "highlights" && $0.state == to && $0.wallNanoseconds == 7 })
    }

    /// An unknown content id stays `metadata-not-received`: gaining its code is one `failed` event
    /// (with that state), keeping it says nothing more, and its metadata arriving is `discovered`.
    @Test func anUnknownContentIDFailsOnceWithoutLeavingMetadataNotReceived() throws {
        let waiting = Self.item(.metadataNotReceived)
        let unknown = Self.item(.metadataNotReceived, error: .contentIDDoesNotExist)
        let events = CacheItemEvent.transition(waiting, unknown, wallNanoseconds: 7)
        #expect(events.map(\.kind) == [.failed])
        #expect(events.first?.state == .metadataNotReceived && events.first?.error == .contentIDDoesNotExist)
        #expect(CacheItemEvent.transition(unknown, unknown, wallNanoseconds: 8).isEmpty)
        var known = unknown
        try known.move(to: .discovered)
        #expect(known.error == nil)
        #expect(CacheItemEvent.transition(unknown, known, wallNanoseconds: 9).map(\.kind) == [.discovered])
    }

    /// A failure carries its code to fans and operators; the detail (origin URL, token) only to operators.
    @Test func aFailureCarriesItsCodeAndOnlyOperatorsSeeTheDetail() throws {
        let at: Int64 = 1_700_000_000 * Self.second
        let events = CacheItemEvent.transition(Self.item(.downloading, files: 1), Self.item(.failed, files: 1, error: .httpError), wallNanoseconds: at)
        let failed = try #require(events.first)
        #expect(failed.error == .httpError)
        let journal = failed.gatewayEvent
        #expect(journal.kind == .itemFailed && journal.kind.priority == 4)
        let fields = Dictionary(uniqueKeysWithValues: journal.fields.map { ($0.name, $0.value) })
        #expect(fields["ITEM"] == "goal" && fields["ERROR"] == "http-error" && fields["STATE"] == "failed")
        #expect(fields["ERROR_DETAIL"]?.contains("sig=secret") == true)
        let fan = failed.fanJSON.encoded
        #expect(fan.contains("\"error\":\"http-error\"") && fan.contains("\"time\":\"2023-11-14T22:13:20.000Z\""))
        #expect(!fan.contains("https://") && !fan.contains("secret"))
    }

    @Test func progressNamesItsFileAndBytes() {
        let event = CacheItemEvent.progress(Self.item(.downloading, files: 1), path: "v0/seg3.ts", fileBytes: 65_536, fileSize: 200_000,
                                            wallNanoseconds: 0)
        let fields = Dictionary(uniqueKeysWithValues: event.gatewayEvent.fields.map { ($0.name, $0.value) })
        #expect(fields["PATH"] == "v0/seg3.ts" && fields["FILE_BYTES"] == "65536" && fields["FILE_SIZE"] == "200000")
        #expect(event.gatewayEvent.kind == .itemProgress && event.gatewayEvent.kind.priority == 7)
        #expect(event.fanJSON["fileBytes"] == .number(65_536) && event.fanJSON["fileSize"] == .number(200_000))
        let unknownSize = CacheItemEvent.progress(Self.item(.downloading), path: "a", fileBytes: 1, fileSize: nil, wallNanoseconds: 0)
        #expect(unknownSize.fanJSON["fileSize"] == .null)
    }

    /// Chunks arrive many times a second; one event per item per second goes out, the first at
    /// once; each item on its own; an ended download starts over.
    @Test func progressIsThrottledPerItem() {
        var throttle = CacheProgressThrottle()
        var clock: Int64 = 5 * Self.second
        var sent: [String] = []
        // 3 s of 16 KiB chunks every 10 ms for two items.
        for _ in 0..<300 {
            for id in ["a", "b"] where throttle.admit(id, monotonicNanoseconds: clock) { sent.append(id) }
            clock += Self.second / 100
        }
        #expect(sent.filter { $0 == "a" }.count == 3 && sent.filter { $0 == "b" }.count == 3)
        let early = throttle.admit("a", monotonicNanoseconds: clock - Self.second / 2)
        #expect(!early)
        throttle.finish("a")
        let again = throttle.admit("a", monotonicNanoseconds: clock)
        #expect(again && throttle.tracked == 2)
        // A clock that went back never silences an item for good.
        var backwards = CacheProgressThrottle(intervalNanoseconds: Self.second)
        let first = backwards.admit("a", monotonicNanoseconds: 10 * Self.second)
        let back = backwards.admit("a", monotonicNanoseconds: 1 * Self.second)
        #expect(first && back)
    }

    @Test func everyKindHasItsJournalKind() {
        let kinds = CacheItemEvent.Kind.allCases.map(\.gatewayKind)
        #expect(Set(kinds).count == kinds.count)
        #expect(kinds.map(\.rawValue) == CacheItemEvent.Kind.allCases.map { "item-" + $0.rawValue })
    }
}
