import Testing
@testable import GrandstandCore

struct ReportingUploadPolicyTests {
    /// Doubling from 5 s to the 300 s cap; the jitter draw only ever shortens.
    @Test(arguments: [
        (0, 0.0, 0), (1, 0.0, 5_000), (2, 0.0, 10_000), (3, 0.0, 20_000), (6, 0.0, 160_000), (7, 0.0, 300_000),
        (50, 0.0, 300_000), (1, 0.5, 4_500), (7, 0.999, 240_060), (3, 1.0, 16_000),
    ] as [(Int, Double, Int64)])
    func backoffDelays(failures: Int, draw: Double, milliseconds: Int64) {
        let backoff = UploadBackoff(initialMilliseconds: 5_000, maxMilliseconds: 300_000, jitter: 0.2)
        #expect(backoff.delay(afterFailures: failures, draw: draw) == milliseconds)
    }

    @Test func hugeFailureCountsDoNotOverflow() {
        let backoff = UploadBackoff(initialMilliseconds: 1, maxMilliseconds: .max / 2)
        #expect(backoff.delay(afterFailures: 10_000) == .max / 2)
    }

    /// The retry clock: failures push the next attempt out, a success makes it immediate.
    @Test func retryStateFollowsTheInjectedClock() {
        var retry = UploadRetry(backoff: UploadBackoff(initialMilliseconds: 100, maxMilliseconds: 1_000))
        #expect(retry.isDue(at: 0))
        #expect(retry.failed(at: 1_000) == 100)
        #expect(!retry.isDue(at: 1_099))
        #expect(retry.isDue(at: 1_100))
        #expect(retry.failed(at: 1_100) == 200)
        #expect(retry.failed(at: 1_300) == 400)
        #expect(retry.failed(at: 1_700) == 800)
        #expect(retry.failed(at: 2_500) == 1_000)
        #expect(retry.consecutiveFailures == 5)
        #expect(!retry.isDue(at: 3_499))
        retry.succeeded()
        #expect(retry.isDue(at: 2_500))
        #expect(retry.consecutiveFailures == 0)
        #expect(retry.failed(at: 4_000) == 100)
    }

    @Test(arguments: [
        (Optional(200), UploadOutcome.delivered), (204, .delivered), (500, .retry), (503, .retry), (408, .retry),
        (429, .retry), (nil, .retry), (400, .rejected), (404, .rejected), (413, .rejected), (301, .rejected),
    ] as [(Int?, UploadOutcome)])
    func outcomeOfAStatus(status: Int?, outcome: UploadOutcome) {
        #expect(UploadOutcome(status: status) == outcome)
    }

    @Test func queueFileNamesSortBySequence() {
        #expect(UploadQueuePolicy.fileName(7) == "report-00000000000000000007.json")
        #expect(UploadQueuePolicy.sequence(ofFileName: "report-00000000000000000007.json") == 7)
        #expect(UploadQueuePolicy.sequence(ofFileName: UploadQueuePolicy.fileName(.max)) == .max)
        for stray in [".report-00000000000000000007.json.tmp", "report-7.json", "report-0000000000000000000x.json", "notes.txt"] {
            #expect(UploadQueuePolicy.sequence(ofFileName: stray) == nil, "\(stray)")
        }
        let names = [12, 3, 100].map { UploadQueuePolicy.fileName(UInt64($0)) }.sorted()
        #expect(names.compactMap(UploadQueuePolicy.sequence(ofFileName:)) == [3, 12, 100])
    }

    @Test(arguments: [
        ([], 3, []), ([1, 2], 3, []), ([1, 2, 3], 3, [1]), ([5, 3, 4, 6], 3, [3, 4]), ([9], 1, [9]), ([1, 2], 0, [1, 2]),
    ] as [([UInt64], Int, [UInt64])])
    func fullQueueDropsTheOldest(queued: [UInt64], limit: Int, dropped: [UInt64]) {
        #expect(UploadQueuePolicy.toDrop(queued: queued, limit: limit) == dropped)
    }

    @Test(arguments: [
        ("http://10.0.0.5:8088/report", "10.0.0.5", 8088, "/report"),
        ("http://collector.venue", "collector.venue", 80, "/"),
        ("HTTP://[fd00::1]:9000/r?id=1", "fd00::1", 9000, "/r?id=1"),
        ("http://h?x=1", "h", 80, "/?x=1"),
    ] as [(String, String, UInt16, String)])
    func reporterURLs(url: String, host: String, port: UInt16, target: String) {
        #expect(UploadTarget.parse(url) == .success(UploadTarget(host: host, port: port, target: target)))
    }

    @Test(arguments: [
        ("https://r.example/x", "\"https://r.example/x\": https is not supported (no TLS in the gateway); use an http:// collector or relay"),
        ("ftp://x/", "\"ftp://x/\" is not an http:// URL"),
        ("http://:80/", "\"http://:80/\" has no host"),
        ("http://h:0/", "\"http://h:0/\": \"0\" is not a port 1...65535"),
        ("http://h:99999/", "\"http://h:99999/\": \"99999\" is not a port 1...65535"),
        ("http://u:p@h/", "\"http://u:p@h/\": credentials in the URL are not supported"),
        ("http://h/a b", "\"http://h/a b\": the path may not contain spaces, line breaks or a fragment"),
        ("http://[fd00::1/", "\"http://[fd00::1/\": unterminated [IPv6] host"),
    ])
    func badReporterURLs(url: String, reason: String) {
        #expect(UploadTarget.parse(url) == .failure(UploadTargetProblem(reason)))
    }
}
