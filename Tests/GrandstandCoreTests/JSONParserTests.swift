import Testing
@testable import GrandstandCore

struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2.5, 3e2, true, false, null], "b": {"c": "d\n\u00e9\ud83c\udfdf"}} "#)
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("d\né🏟"))
    }

    @Test func keepsMemberOrderAndReencodes() throws {
        let text = #"{"z":1,"a":"x\"y","m":[{},[]]}"#
        let value = try JSONParser.parse(text)
        #expect(value.encoded == text)
        #expect(try JSONParser.parse(value.encoded) == value)
    }

    @Test(arguments: [
        ("", 1, 1, "unexpected end of input"),
        ("{\"a\":1,}", 1, 8, "expected a member name in quotes"),
        ("{\n  \"a\": tru\n}", 2, 8, "invalid literal (expected true)"),
        ("[1 2]", 1, 4, "expected ',' or ']' in array"),
        ("01", 1, 2, "unexpected text after the JSON value"),
        ("\"a\u{01}\"", 1, 3, "control character in string"),
        ("\"\\x\"", 1, 4, "invalid escape '\\x'"),
        ("\"\\ud800\"", 1, 8, "unpaired surrogate in \\u escape"),
        ("{\"a\":1,\"a\":2}", 1, 11, "duplicate member \"a\""),
        ("1e999", 1, 6, "number out of range"),
        ("-", 1, 2, "invalid number"),
    ])
    func rejectsWithPosition(text: String, line: Int, column: Int, reason: String) {
        #expect(throws: JSONParser.Failure(line: line, column: column, reason: reason)) { try JSONParser.parse(text) }
    }

    @Test func boundsNesting() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONParser.parse(ok)
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    /// Every prefix of a valid document is either valid (a number) or a clean failure.
    @Test func everyTruncationFailsCleanly() {
        let bytes = Array(#"{"license":{"venueName":"A\u00e9"},"n":[1.5e3,true,null]}"#.utf8)
        for end in 0..<bytes.count {
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(bytes[..<end])) }
        }
    }
}
