import Testing
@testable import GrandstandCore

/// Range (RFC 9110 §14) and entity-tag conditions (§13.1.2, §13.1.5) as the fan listener applies
/// them: table tests over whole and odd inputs.
struct HTTPByteRangeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var field: String?
        var length: Int
        var expected: ByteRangeSelection
        var testDescription: String { "\(field ?? "nil") of \(length)" }
        init(_ field: String?, _ length: Int, _ expected: ByteRangeSelection) {
            self.field = field
            self.length = length
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case(nil, 1000, .full),
        Case("bytes=0-99", 1000, .partial(first: 0, last: 99)),
        Case("bytes=100-", 1000, .partial(first: 100, last: 999)),
        Case("bytes=-100", 1000, .partial(first: 900, last: 999)),
        Case("bytes=0-", 1000, .partial(first: 0, last: 999)),
        Case("bytes=999-999", 1000, .partial(first: 999, last: 999)),
        Case("bytes=500-5000", 1000, .partial(first: 500, last: 999)),
        Case("bytes=-5000", 1000, .partial(first: 0, last: 999)),
        Case("BYTES=1-2", 1000, .partial(first: 1, last: 2)),
        Case("  bytes=1-2  ", 1000, .partial(first: 1, last: 2)),
        Case("bytes= 1-2 ,", 1000, .partial(first: 1, last: 2)),
        Case("bytes=,,1-2", 1000, .partial(first: 1, last: 2)),
        Case("bytes=0-99999999999999999999999999", 10, .partial(first: 0, last: 9)),
        // Not satisfiable: 416.
        Case("bytes=1000-", 1000, .unsatisfiable),
        Case("bytes=1000-2000", 1000, .unsatisfiable),
        Case("bytes=99999999999999999999999-", 1000, .unsatisfiable),
        Case("bytes=-0", 1000, .unsatisfiable),
        Case("bytes=0-0", 0, .unsatisfiable),
        Case("bytes=-10", 0, .full),
        // Malformed, other units, several ranges: the whole body.
        Case("bytes=5-1", 1000, .full),
        Case("bytes=0-1,5-6", 1000, .full),
        Case("bytes=-", 1000, .full),
        Case("bytes=", 1000, .full),
        Case("bytes=a-b", 1000, .full),
        Case("bytes=+1-2", 1000, .full),
        Case("bytes=1 -2", 1000, .full),
        Case("bytes=1--2", 1000, .full),
        Case("bytes 1-2", 1000, .full),
        Case("items=0-1", 1000, .full),
        Case("", 1000, .full),
        Case("bytes=0x10-20", 1000, .full),
        Case("bytes=٣-٤", 1000, .full),
    ]

    @Test(arguments: cases)
    func rangeTable(_ c: Case) {
        #expect(ByteRangeSelection.select(range: c.field, length: c.length) == c.expected)
    }

    @Test func contentRangeValues() {
        #expect(ByteRangeSelection.partial(first: 0, last: 99).contentRange(length: 1000) == "bytes 0-99/1000")
        #expect(ByteRangeSelection.unsatisfiable.contentRange(length: 1000) == "bytes */1000")
        #expect(ByteRangeSelection.full.contentRange(length: 1000) == nil)
    }

    @Test func ifRangeAppliesTheRangeOnlyForTheSameStrongTag() {
        let tag = "\"cam.1.seg3\""
        #expect(ByteRangeSelection.select(range: "bytes=0-9", length: 100, ifRange: tag, entityTag: tag) == .partial(first: 0, last: 9))
        #expect(ByteRangeSelection.select(range: "bytes=0-9", length: 100, ifRange: "\"other\"", entityTag: tag) == .full)
        #expect(ByteRangeSelection.select(range: "bytes=0-9", length: 100, ifRange: "W/\"cam.1.seg3\"", entityTag: tag) == .full)
        #expect(ByteRangeSelection.select(range: "bytes=0-9", length: 100, ifRange: "Sat, 21 Nov 2026 06:00:00 GMT", entityTag: tag) == .full)
        #expect(ByteRangeSelection.select(range: "bytes=0-9", length: 100, ifRange: tag, entityTag: nil) == .full)
    }

    @Test func ifNoneMatch() {
        let tag = "\"h1234-10\""
        #expect(EntityTag.noneMatchFails(tag, current: tag))
        #expect(EntityTag.noneMatchFails("*", current: tag))
        #expect(EntityTag.noneMatchFails(" \"a\", W/\"h1234-10\" ", current: tag))
        #expect(EntityTag.noneMatchFails("\"a\",,\"h1234-10\"", current: tag))
        #expect(!EntityTag.noneMatchFails("\"a\", \"b\"", current: tag))
        #expect(!EntityTag.noneMatchFails("h1234-10", current: tag))
        #expect(!EntityTag.noneMatchFails("\"h1234-10", current: tag))
        #expect(!EntityTag.noneMatchFails("\"h1234-10\"x", current: tag))
        #expect(!EntityTag.noneMatchFails("", current: tag))
        #expect(!EntityTag.noneMatchFails("\"a b\"", current: tag))
    }

    @Test func tagsAreQuotedAndClean() {
        #expect(EntityTag.strong("cam.1.seg3.2") == "\"cam.1.seg3.2\"")
        #expect(EntityTag.strong("a\"b c") == "\"a_b_c\"")
        let a = EntityTag.forBody(Array("#EXTM3U\n".utf8)), b = EntityTag.forBody(Array("#EXTM3U\n\n".utf8))
        #expect(a != b)
        #expect(a.hasPrefix("\"h") && a.hasSuffix("-8\""))
        #expect(EntityTag.list(a)?.count == 1)
    }
}
