import Testing
@testable import GrandstandCore

struct ReportingPrometheusTests {
    @Test(arguments: [
        ("plain", "plain"), ("a\"b", "a\\\"b"), ("back\\slash", "back\\\\slash"), ("two\nlines", "two\\nlines"),
        ("ünïcode ✓", "ünïcode ✓"),
    ])
    func labelValuesAreEscaped(raw: String, escaped: String) {
        #expect(PrometheusText.escapeLabelValue(raw) == escaped)
    }

    @Test func helpEscapesBackslashAndNewlineButNotQuotes() {
        #expect(PrometheusText.escapeHelp("say \"hi\"\\\nbye") == "say \"hi\"\\\\\\nbye")
    }

    @Test(arguments: [
        ("packets_received", "packets_received"), ("hls-segments", "hls_segments"), ("9lives", "_9lives"),
        ("a:b", "a:b"), ("", "_"), ("drops.reason", "drops_reason"),
    ])
    func namesAreMadeLegal(raw: String, legal: String) {
        #expect(PrometheusText.metricName(raw) == legal)
    }

    @Test func labelNamesLoseColons() {
        #expect(PrometheusText.labelName("a:b") == "a_b")
    }

    @Test(arguments: [(0.0, "0"), (42.0, "42"), (-3.0, "-3"), (0.25, "0.25"), (Double.infinity, "+Inf"),
                      (-Double.infinity, "-Inf"), (Double.nan, "NaN")])
    func valuesAreFormatted(value: Double, text: String) {
        #expect(PrometheusText.value(value) == text)
    }

    @Test func familiesRenderHelpTypeAndSamples() {
        let text = PrometheusText.render([
            MetricFamily(name: "grandstand_up", help: "Up.", kind: .gauge, samples: [.init([], 1)]),
            MetricFamily(name: "grandstand_empty", help: "Never shown.", kind: .counter, samples: []),
            MetricFamily(name: "grandstand_channel_gaps", help: "Gaps.", kind: .counter,
                         samples: [.init([.init("channel", "a\"b")], 3), .init([.init("channel", "c")], 0)]),
        ])
        #expect(text == """
        # HELP grandstand_up Up.
        # TYPE grandstand_up gauge
        grandstand_up 1
        # HELP grandstand_channel_gaps Gaps.
        # TYPE grandstand_channel_gaps counter
        grandstand_channel_gaps{channel="a\\"b"} 3
        grandstand_channel_gaps{channel="c"} 0

        """)
    }

    static let stats = """
    {"channels":{"bowl-cam":{"announcement_session_id":"42","announcement_session_title":"Bowl \\"Cam\\"",
                              "drops":{"bad_checksum":2},"gaps":1,"listed":true,"rtp_jitter_microseconds":120},
                 "scores":{"gaps":0,"listed":false}},
     "total":{"channels_listed":1,"drops":{"bad_checksum":2,"truncated":1},"gaps":1}}
    """

    @Test func statsBecomeTotalAndChannelFamilies() throws {
        let families = StatsMetrics.families(try JSONParser.parse(Array(Self.stats.utf8)))
        let byName = Dictionary(uniqueKeysWithValues: families.map { ($0.name, $0) })
        #expect(families.map(\.name) == families.map(\.name).sorted())
        #expect(byName["grandstand_gaps"]?.kind == .counter)
        #expect(byName["grandstand_gaps"]?.samples == [.init([], 1)])
        #expect(byName["grandstand_channels_listed"]?.kind == .gauge)
        #expect(byName["grandstand_drops"]?.samples == [.init([.init("reason", "bad_checksum")], 2), .init([.init("reason", "truncated")], 1)])
        #expect(byName["grandstand_channel_gaps"]?.samples == [.init([.init("channel", "bowl-cam")], 1), .init([.init("channel", "scores")], 0)])
        #expect(byName["grandstand_channel_listed"]?.kind == .gauge)
        #expect(byName["grandstand_channel_listed"]?.samples.map(\.value) == [1, 0])
        #expect(byName["grandstand_channel_rtp_jitter_microseconds"]?.kind == .gauge)
        #expect(byName["grandstand_channel_drops"]?.samples == [.init([.init("channel", "bowl-cam"), .init("reason", "bad_checksum")], 2)])
        #expect(byName["grandstand_channel_info"]?.samples.first?.labels == [
            .init("channel", "bowl-cam"), .init("announcement_session_id", "42"), .init("announcement_session_title", "Bowl \"Cam\""),
        ])
        let text = PrometheusText.render(families)
        #expect(text.contains("grandstand_channel_info{channel=\"bowl-cam\",announcement_session_id=\"42\",announcement_session_title=\"Bowl \\\"Cam\\\"\"} 1\n"))
        // Each family's HELP and TYPE appear exactly once.
        #expect(text.components(separatedBy: "# TYPE grandstand_channel_gaps ").count == 2)
    }
}
