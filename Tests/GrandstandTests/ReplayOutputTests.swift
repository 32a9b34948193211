import GrandstandCore
import Testing
@testable import GrandstandIngest

/// The data-message line is built directly for speed; it must stay byte-identical to the
/// general JSON line writer it replaced.
struct ReplayOutputTests {
    static let payloads: [[UInt8]] = [[], [0], [0xFF, 0xFE], [1, 2, 3], Array("score 2-0 \"quoted\"\n".utf8),
                                      (0..<1400).map { UInt8(truncatingIfNeeded: $0 &* 37) }]
    static let times: [Int64] = [0, 1_700_000_000_123_456_789, -1, -1_000_000_001, Int64.max, 86_399_999_999_999]

    @Test(arguments: payloads)
    func dataLineMatchesGeneralLine(payload: [UInt8]) {
        for time in Self.times {
            let general = ReplayOutput.line([("payload", .string(TextEncoding.base64(payload[...])))], time: time)
            let direct = String(decoding: ReplayOutput.dataLine(payload[...], time: time), as: UTF8.self)
            #expect(direct == general)
        }
    }

    @Test func dataLineOfASlice() {
        let bytes: [UInt8] = Array(0..<200)
        let slice = bytes[17..<100]
        let direct = String(decoding: ReplayOutput.dataLine(slice, time: 5), as: UTF8.self)
        let general = ReplayOutput.line([("payload", .string(TextEncoding.base64(Array(slice)[...])))], time: 5)
        #expect(direct == general)
        #expect(direct.hasPrefix(#"{"payload":"ERITFBUW"#))
    }
}
