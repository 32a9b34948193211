import GrandstandCore
import GrandstandOperations
import HTTPClient

/// The demo's recording: once the first channel is live, `grandstand demo` records it for
/// `seconds` through its own management API (as an operator would, docs/recordings.md), so the
/// fan page's "Recordings" list has something to play and download. Stepped from the demo's main
/// loop (no thread of its own); a refusal before the channel is live is retried on the next step.
struct DemoRecording {
    let client: ManagementClient
    let name: String
    let channel: String
    let seconds: Double
    private var startedAt: Int64? = nil
    private(set) var done = false

    init(management: ListenAddress, token: String, name: String, channel: String, seconds: Double) {
        client = ManagementClient(endpoint: HTTPEndpoint(host: management.host, port: management.port), token: token, timeoutSeconds: 2)
        self.name = name
        self.channel = channel
        self.seconds = seconds
    }

    /// Starts the recording when the channel can be recorded, stops it `seconds` later.
    mutating func step(now: Int64) {
        guard !done else { return }
        let body = { (members: [(String, JSONValue)]) in Array(JSONValue.object(members).encoded.utf8) }
        guard let startedAt else {
            let answer = try? client.call("/api/v1/records", method: "POST", body: body([("name", .string(name)), ("channel", .string(channel))]))
            if answer?.status == 201 { self.startedAt = now }
            return
        }
        guard Double(now - startedAt) / 1e9 >= seconds else { return }
        _ = try? client.call("/api/v1/records/stop", method: "POST", body: body([("name", .string(name))]))
        done = true
    }
}
