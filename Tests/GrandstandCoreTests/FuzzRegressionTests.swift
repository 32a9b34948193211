import Testing
import TestSupport
@testable import GrandstandCore

/// Inputs the fuzz targets found crashing (tools/fuzz, docs/reliability.md "Findings"), replayed
/// through the same code paths. The raw inputs are in Tests/Fixtures/fuzz/ (seeds of their target).
@Suite struct FuzzRegressionTests {
    /// `query`: `rewind.m3u8?at=0` (or any moment before ~1991, down to the most negative the
    /// parser accepts) overflowed the tick arithmetic of the distance behind the live edge — a
    /// trap any fan could trigger. Such moments now clamp like offsets: the oldest segment.
    @Test(arguments: ["at=0", "at=-9223372036853", "at=-1", "at=9223372036853", "offset=-1e300", "offset=-9999999999999999999"])
    func rewindToAnyMomentStartsInsideTheWindow(query: String) throws {
        let w = window(complete: 25, openParts: 1)
        let position = try #require(RewindPosition.parse(query: query[...]))
        let start = try #require(w.rewindStart(position))
        let held = w.completeSegments.map(\.mediaSequence)
        #expect(held.contains(start.firstSequence), "\(query) → \(start)")
        let playlist = w.rewindPlaylist(position)
        #expect(playlist.hasPrefix("#EXTM3U") && playlist.contains("#EXT-X-START:TIME-OFFSET="))
    }

    /// `catalog`: a fixture whose end date (year 9999, a feed's "no end") came before its start
    /// date had its refusal text print the date through nanoseconds in an Int64 and trapped.
    @Test func farFutureCatalogDatesPrint() throws {
        let date = try #require(CatalogDate.parse("9999-12-31T23:59:59Z"))
        #expect(date.description == "9999-12-31T23:59:59Z")
        #expect(try #require(CatalogDate.parse("9999-12-31")).description == "9999-12-31")
        let feed = #"{"fixtures":[{"id":"f","name":"F","startDate":"9999-12-31T00:00:00Z","endDate":"9000-01-01T00:00:00Z"}]}"#
        let problem = "\(try CatalogFeedDecoder.decode(Array(feed.utf8)).issues)"
        #expect(problem.contains("9000-01-01T00:00:00Z is before startDate 9999-12-31T00:00:00Z"), "\(problem)")
        // The fuzzer's input (query line, then a feed with a fixture in 4050): decodes without a trap.
        let replay = try Fixtures.bytes("fuzz/catalog-date-overflow.bin")
        let feedBytes = Array(replay.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).last ?? [])
        #expect((try? CatalogFeedDecoder.decode(feedBytes)) != nil)
    }

    /// The far past starts at the oldest segment, the future at HOLD-BACK from the live edge.
    @Test func farMomentsClampToTheWindowEdges() throws {
        let w = window(complete: 25, openParts: 1)
        let past = try #require(w.rewindStart(.programDateTime(nanoseconds: 0)))
        #expect(past.firstSequence == w.completeSegments.first?.mediaSequence && past.offsetTicks == 0)
        let future = try #require(w.rewindStart(.programDateTime(nanoseconds: Int64.max)))
        #expect(future.behindLiveTicks >= w.holdBackTicks)
    }
}

/// `query`: an upload URL whose host had brackets or colons outside a leading `[…]` parsed into a
/// target whose description named another URL; such hosts are refused now, and every accepted
/// target prints as a URL that parses back to it.
@Suite struct FuzzRegressionUploadTargetTests {
    @Test(arguments: ["http://nnnnnnnnnnnn[fd00::1]:80/:1]:8", "http://a[b]/", "http://a:b:80/", "http://x]:80/"])
    func hostsWithStrayBracketsOrColonsAreRefused(url: String) {
        guard case .failure(let problem) = UploadTarget.parse(url) else {
            Issue.record("\(url) accepted")
            return
        }
        #expect(problem.description.contains(url))
    }

    @Test(arguments: ["http://collector:8080/v1/stats", "http://[fd00::1]:80/", "http://[::1]/x?y=1", "http://10.0.0.1"])
    func acceptedTargetsPrintAsURLsThatParseBack(url: String) throws {
        let target = try UploadTarget.parse(url).get()
        #expect(UploadTarget.parse(target.description) == .success(target))
    }
}

/// `cmaf`: H.264 SPSs whose frame-cropping offsets (ue(v), up to 2^32 − 1) overflowed when
/// summed in 32 bits, or whose scaling-list delta (se(v), −128…127 by §7.4.2.1.1.1) overflowed;
/// the parser now refuses both.
@Test(arguments: ["fuzz/cmaf-sps-crop-overflow.bin", "fuzz/cmaf-sps-scaling-delta.bin"])
func aSequenceParameterSetWithOutOfRangeFieldsIsRefused(_ name: String) throws {
    let input = try Fixtures.bytes(name)
    let split = Int(input[0])
    let first = Array(input[1..<min(input.count, 1 + split)])
    #expect(AVCConfiguration(sps: [0x67] + first, pps: [[0x68]]) == nil)
}

/// Parameter sets the configuration records cannot hold (a length over 16 bits, more than 255
/// H.264 PPS) are refused rather than trapping in the record writer.
@Test func parameterSetsTooLargeForTheirRecordAreRefused() throws {
    let units = NALUnits.split(try Fixtures.bytes("media/testsrc-160x90-25fps-2s.h264")[...])
    let sps = Array(try #require(units.first { $0.first! & 0x1F == 7 }))
    #expect(AVCConfiguration(sps: sps, pps: [[0x68]]) != nil)
    #expect(AVCConfiguration(sps: sps + [UInt8](repeating: 0, count: 70_000), pps: [[0x68]]) == nil)
    #expect(AVCConfiguration(sps: sps, pps: Array(repeating: [0x68], count: 256)) == nil)
    #expect(AVCConfiguration(sps: sps, pps: [[0x68] + [UInt8](repeating: 1, count: 70_000)]) == nil)
}
