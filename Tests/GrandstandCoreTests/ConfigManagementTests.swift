import Testing
@testable import GrandstandCore

struct ConfigManagementTests {
    static let base = #"{"license":{"venueName":"V","contentOwner":"O","appDeveloper":"D"}"#

    static func decode(_ extra: String) throws(ConfigError) -> GatewayConfig {
        try GatewayConfig.decode(Array((base + extra + "}").utf8))
    }

    @Test func tokenStateDirectoryAndLevelAreOptional() throws {
        let config = try Self.decode("")
        #expect(config.managementToken == nil)
        #expect(config.stateDirectory == "/var/lib/grandstand")
        #expect(config.logLevel == .info)
    }

    @Test func newKeysDecode() throws {
        let config = try Self.decode(#","management":{"token":"abc.DEF-123_~+/="},"stateDirectory":"/srv/gs","logLevel":"DEBUG""#)
        #expect(config.managementToken == "abc.DEF-123_~+/=")
        #expect(config.stateDirectory == "/srv/gs")
        #expect(config.logLevel == .debug)
    }

    @Test(arguments: [
        (#","management":{"token":"has space"}"#, "$.management.token: token may only hold letters, digits and - . _ ~ + / = (RFC 6750 b64token)"),
        (#","management":{"token":""}"#, "$.management.token: must not be empty"),
        (#","stateDirectory":"relative/dir""#, "$.stateDirectory: \"relative/dir\" is not an absolute path"),
        (#","logLevel":"chatty""#, "$.logLevel: \"chatty\" is not a log level (emerg, alert, crit, err, warning, notice, info, debug)"),
        (#","logLevel":3"#, "$.logLevel: expected a string, got a number"),
    ])
    func badValuesAreReportedWithTheirPath(extra: String, message: String) {
        do {
            _ = try Self.decode(extra)
            Issue.record("accepted \(extra)")
        } catch {
            #expect(error.issues.map(\.description) == [message])
        }
    }

    @Test(arguments: [("warn", LogLevel.warning), ("error", .error), ("err", .error), ("7", .debug), ("Notice", .notice),
                      ("emergency", .emergency), ("crit", .critical)])
    func levelNames(name: String, level: LogLevel) {
        #expect(LogLevel(name: name) == level)
    }

    @Test func levelAdmitsMoreImportantPriorities() {
        #expect(LogLevel.warning.admits(priority: 3) && LogLevel.warning.admits(priority: 4))
        #expect(!LogLevel.warning.admits(priority: 5))
        #expect(LogLevel.debug.admits(priority: 7))
    }

    @Test func generatedTokenTextIsHex() {
        #expect(ManagementToken.text(fromRandom: [0x00, 0x9f, 0xff, 0x10]) == "009fff10")
        #expect(ManagementToken.problem(ManagementToken.text(fromRandom: Array(repeating: 0xab, count: 32))) == nil)
    }

    @Test func documentHidesAndRestoresTheToken() throws {
        let document = try JSONParser.parse(Array(#"{"a":1,"management":{"token":"s3cret","x":2}}"#.utf8))
        let hidden = ConfigDocument.redacted(document)
        #expect(hidden.encoded == #"{"a":1,"management":{"token":"<redacted>","x":2}}"#)
        #expect(ConfigDocument.restoringToken(hidden, from: document) == document)
        // A new token is kept; a document without a token stays without.
        let changed = try JSONParser.parse(Array(#"{"management":{"token":"new-one"}}"#.utf8))
        #expect(ConfigDocument.restoringToken(changed, from: document) == changed)
        let restoredFromNone = ConfigDocument.restoringToken(hidden, from: try JSONParser.parse(Array("{}".utf8)))
        #expect(restoredFromNone.encoded == #"{"a":1,"management":{"x":2}}"#)
        #expect(ConfigDocument.redacted(try JSONParser.parse(Array("[1]".utf8))).encoded == "[1]")
    }

    @Test func changesNameTheSettings() throws {
        let old = try Self.decode("")
        var new = old
        #expect(ConfigDocument.changes(from: old, to: new).isEmpty)
        new.logLevel = .debug
        new.listeners.fan.port = 9
        new.license.venueName = "W"
        new.managementToken = "other"
        #expect(ConfigDocument.changes(from: old, to: new) == ["$.license", "$.listeners", "$.management.token", "$.logLevel"])
    }

    @Test func tablesPadColumnsAndFlattenJSON() throws {
        var table = TextTable(["ID", "NAME"])
        table.append(["bowl-cam", "Bowl"])
        table.append(["x", ""])
        #expect(table.text == "ID        NAME\nbowl-cam  Bowl\nx\n")
        let document = try JSONParser.parse(Array(#"{"a":{"b":1,"c":null},"l":["x","y"],"o":[{"k":true}]}"#.utf8))
        let rows = TextTable.flattened(document)
        #expect(rows.map(\.0) == ["a.b", "a.c", "l", "o[0].k"])
        #expect(rows.map(\.1) == ["1", "-", "x, y", "true"])
    }
}
