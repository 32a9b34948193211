import GrandstandCore
import Testing

@Suite struct CacheStateTests {
    /// The legal moves written out independently of the implementation's table.
    static let legal: [(CacheItemState, [CacheItemState])] = [
        (.metadataNotReceived, [.discovered, .failed, .deleted]),
        (.discovered, [.queued, .failed, .deleted]),
        (.queued, [.downloading, .idle, .paused, .failed, .deleted]),
        (.downloading, [.idle, .paused, .cached, .partiallyCached, .failed, .deleted]),
        (.idle, [.queued, .downloading, .paused, .failed, .deleted]),
        (.paused, [.queued, .discovered, .deleted]),
        (.cached, [.partiallyCached, .discovered, .failed, .deleted]),
        (.partiallyCached, [.queued, .downloading, .paused, .cached, .discovered, .failed, .deleted]),
        (.failed, [.queued, .discovered, .deleted]),
        (.deleted, []),
    ]

    @Test(arguments: CacheItemState.allCases)
    func everyMoveFromAStateIsLegalOrATypedError(_ from: CacheItemState) throws {
        let allowed = try #require(Self.legal.first { $0.0 == from }?.1)
        for to in CacheItemState.allCases where to != from {
            var item = CacheItem(id: "x", source: .origin, state: from, now: 0)
            do {
                try item.move(to: to)
                #expect(allowed.contains(to), "\(from.rawValue) → \(to.rawValue) was allowed")
                #expect(item.state == to)
            } catch {
                #expect(!allowed.contains(to), "\(from.rawValue) → \(to.rawValue) was refused")
                #expect(error.id == "x" && error.from == from && error.to == to)
                #expect(item.state == from)
            }
        }
    }

    @Test func namesAreTheDocumentedOnes() {
        #expect(CacheItemState.allCases.map(\.rawValue) == ["metadata-not-received", "discovered", "queued", "downloading", "idle",
                                                            "paused", "cached", "partially-cached", "failed", "deleted"])
        #expect(CacheErrorCode.allCases.map(\.rawValue) == ["no-network", "timeout", "network-error", "http-error", "item-corrupted",
                                                            "cancelled", "download-failed", "content-id-does-not-exist",
                                                            "outside-permitted-hours", "daily-limit-reached", "disk-floor-reached"])
    }

    @Test func anErrorCodeIsKeptOnlyWhileFailedOrIdle() throws {
        var item = CacheItem(id: "x", source: .fileChannel("menu"), state: .downloading, now: 0)
        try item.move(to: .failed, error: .timeout, detail: "no answer in 30 s")
        #expect(item.error == .timeout)
        #expect(item.errorDetail == "no answer in 30 s")
        try item.move(to: .queued)
        #expect(item.error == nil)
        // Idle carries why it waits, and loses it when it moves on by itself.
        try item.move(to: .idle, error: .outsidePermittedHours, detail: "waiting: outside-permitted-hours")
        #expect(item.error == .outsidePermittedHours && item.errorDetail == "waiting: outside-permitted-hours")
        #expect(CacheErrorCode(block: .dailyLimitReached) == .dailyLimitReached && CacheErrorCode(block: .concurrencyLimit) == nil)
        try item.move(to: .downloading)
        #expect(item.error == nil && item.errorDetail == nil)
        #expect(CacheItemSource("file-channel:menu") == .fileChannel("menu"))
        #expect(CacheItemSource("file-channel:") == nil)
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var split = SHA256()
        split.update(long[0..<7])
        split.update(long[7...])
        #expect(split.finalizeHex() == SHA256.hex(long))
    }

    /// FIPS 180-4's long vector (one million "a"), and any split of a message giving its one-shot
    /// digest: the pending block is filled across calls of every size around the 64-byte block.
    @Test(arguments: [1, 3, 55, 63, 64, 65, 127, 1000, 1 << 16])
    func sha256IsTheSameHoweverTheInputIsSplit(piece: Int) {
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        var hash = SHA256()
        var offset = 0
        while offset < million.count {
            let end = min(offset + piece, million.count)
            hash.update(million[offset..<end])
            offset = end
        }
        #expect(hash.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let message = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        var lazy = SHA256()
        lazy.update(message.lazy.map { $0 })   // not contiguous: the copying path
        #expect(lazy.finalizeHex() == SHA256.hex(message))
    }
}

@Suite struct CachePolicyTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let policy = CachePolicy()
        #expect(policy.sizeBytes == 5_000_000_000)
        #expect(policy.maxFileBytes == 104_000_000)
        // The SDK's download policies: FullAuto, auto-purge on, concurrency unlimited.
        #expect(policy.itemDownloadBehavior == .fullAuto && policy.autoPurge && policy.maxConcurrentDownloads == nil)
        let many = CachePolicy.Usage(storedBytes: 0, freeDiskBytes: 1 << 40, activeDownloads: 500, downloadedTodayBytes: 0)
        #expect(policy.blocks(many, nowSeconds: 0).isEmpty)
    }

    @Test func blocksNameEveryReason() throws {
        var policy = CachePolicy()
        policy.dailyDownloadBytes = 1000
        policy.permittedHours = [try #require(CachePolicy.HourWindow("22:00-06:00"))]
        policy.diskFloorBytes = 500
        policy.maxConcurrentDownloads = 1
        let busy = CachePolicy.Usage(storedBytes: 0, freeDiskBytes: 400, activeDownloads: 1, downloadedTodayBytes: 1000)
        let noon: Int64 = 12 * 3600
        #expect(policy.blocks(busy, nowSeconds: noon) == [.outsidePermittedHours, .dailyLimitReached, .diskFloorReached, .concurrencyLimit])
        let quiet = CachePolicy.Usage(storedBytes: 0, freeDiskBytes: 501, activeDownloads: 0, downloadedTodayBytes: 999)
        #expect(policy.blocks(quiet, nowSeconds: 86400 * 3 + 23 * 3600).isEmpty)
        #expect(policy.blocks(quiet, nowSeconds: 86400 * 3 + 5 * 3600 + 59 * 60).isEmpty)
        #expect(policy.blocks(quiet, nowSeconds: 86400 * 3 + 6 * 3600) == [.outsidePermittedHours])
    }

    @Test(arguments: ["", "1:00-2:00", "01:00-01:00", "25:00-01:00", "01:60-02:00", "01:00"])
    func malformedHourWindowsAreRefused(_ text: String) {
        #expect(CachePolicy.HourWindow(text) == nil)
    }

    @Test func fileAdmission() {
        var policy = CachePolicy()
        policy.sizeBytes = 1000
        policy.maxFileBytes = 2000
        #expect(policy.refusal(fileBytes: 1000) == nil)
        #expect(policy.refusal(fileBytes: 1001)?.contains("cache size") == true)
        policy.maxFileBytes = 10
        #expect(policy.refusal(fileBytes: 11)?.contains("file limit") == true)
    }

    @Test func dailyCounterRollsOverAtUTCMidnight() {
        var counter = DailyDownloadCounter()
        counter.add(500, nowSeconds: 86400 + 10)
        counter.add(200, nowSeconds: 2 * 86400 - 1)
        #expect(counter.today(nowSeconds: 2 * 86400 - 1) == 700)
        #expect(counter.today(nowSeconds: 2 * 86400) == 0)
    }
}

@Suite struct CacheEvictionTests {
    func item(_ id: String, bytes: Int, access: Int64, locked: Bool = false) -> CacheItem {
        var item = CacheItem(id: id, source: .origin, state: .cached, now: 0)
        item.lastAccessNanoseconds = access
        item.locked = locked
        if bytes > 0 { item.put(CacheFile(path: "f", size: bytes, sha256: id, storedNanoseconds: 0)) }
        return item
    }

    @Test func evictsLeastRecentlyUsedFirstAndNeverALockedItem() {
        let items = [item("old-locked", bytes: 400, access: 1, locked: true), item("old", bytes: 300, access: 2),
                     item("mid", bytes: 200, access: 3), item("new", bytes: 100, access: 4)]
        #expect(CacheEviction.plan(items, limit: 1000, incoming: 0) == [])
        #expect(CacheEviction.plan(items, limit: 1000, incoming: 250) == ["old"])
        #expect(CacheEviction.plan(items, limit: 1000, incoming: 350) == ["old", "mid"])
        #expect(CacheEviction.plan(items, limit: 1000, incoming: 600) == ["old", "mid", "new"])
        #expect(CacheEviction.plan(items, limit: 1000, incoming: 601) == nil)
        #expect(CacheEviction.plan(items, limit: 1000, incoming: 250, keep: "old") == ["mid", "new"])
    }
}

@Suite struct CacheJournalTests {
    static func sampleJournal() -> ([UInt8], [Int]) {
        var bytes = CacheJournal.header
        var boundaries = [bytes.count]
        var a = CacheItem(id: "a", source: .fileChannel("menus"), category: "menu", state: .cached, now: 1_763_700_000_123_456_789)
        a.put(CacheFile(path: "menu.pdf", size: 10, sha256: String(repeating: "ab", count: 32), contentType: "application/pdf",
                        storedNanoseconds: 1_763_700_000_123_456_789))
        a.consumption.append(ConsumptionRecord(startPosition: 0, endPosition: 12.5, recordedNanoseconds: 7))
        var b = CacheItem(id: "b", source: .origin, category: "replay", state: .queued, now: 2)
        b.locked = true
        b.expectedBytes = 1234
        for record in [CacheJournal.Record.put(a), .put(b), .remove("a"), .put(a)] {
            bytes.append(contentsOf: CacheJournal.encode(record))
            boundaries.append(bytes.count)
        }
        return (bytes, boundaries)
    }

    @Test func replayFoldsPutsAndRemovesExactly() throws {
        let (bytes, _) = Self.sampleJournal()
        let replay = CacheJournal.replay(bytes)
        #expect(replay.records == 4)
        #expect(replay.validLength == bytes.count)
        let a = try #require(replay.items["a"])
        #expect(a.createdNanoseconds == 1_763_700_000_123_456_789)
        #expect(a.files.first?.contentType == "application/pdf")
        #expect(a.consumption == [ConsumptionRecord(startPosition: 0, endPosition: 12.5, recordedNanoseconds: 7)])
        #expect(replay.items["b"]?.locked == true)
        #expect(replay.items["b"]?.expectedBytes == 1234)
        #expect(CacheJournal.replay(CacheJournal.snapshot(replay.items)).items == replay.items)
    }

    /// A power cut can leave any prefix: replay keeps exactly the whole records before the cut.
    @Test func aTornTailAtEveryByteOffsetKeepsTheWholeRecordsBeforeIt() {
        let (bytes, boundaries) = Self.sampleJournal()
        let full = CacheJournal.replay(bytes)
        for cut in 0...bytes.count {
            let replay = CacheJournal.replay(Array(bytes[0..<cut]))
            guard cut >= CacheJournal.header.count else {
                #expect(!replay.hadHeader && replay.items.isEmpty)
                continue
            }
            let whole = boundaries.filter { $0 <= cut }
            #expect(replay.validLength == whole.last, "cut at \(cut)")
            #expect(replay.records == whole.count - 1, "cut at \(cut)")
            if cut == bytes.count { #expect(replay.items == full.items) }
        }
    }

    @Test func aFlippedBitEndsTheReplayAtThatRecord() {
        let (bytes, boundaries) = Self.sampleJournal()
        for index in boundaries[2]..<boundaries[3] {
            var damaged = bytes
            damaged[index] ^= 0x10
            let replay = CacheJournal.replay(damaged)
            #expect(replay.records == 2, "bit flipped at \(index)")
            #expect(replay.validLength == boundaries[2])
        }
    }
}
