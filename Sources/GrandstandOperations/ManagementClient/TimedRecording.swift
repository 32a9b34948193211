import GrandstandCore

/// A channel recorded for a fixed time through the management API (docs/recordings.md), stepped
/// from its caller's loop: the demo's "kick-off". An answer lost to a timeout never leaves the
/// recording running: a start whose 201 was lost is answered 409 (the name exists) when retried
/// and taken as started; a stop with no answer is sent again (stopping a stopped recording
/// answers 200).
public struct TimedRecording: Sendable {
    public enum Phase: Equatable, Sendable {
        /// Not started: the channel may not be live yet (404) or the daemon did not answer.
        case waiting
        case recording(sinceNanoseconds: Int64)
        case stopped
        /// The daemon refused the stop for good (the recording was deleted, say).
        case abandoned(String)
    }

    /// One management request: POST `target` with `body`; throws the daemon's refusal or no answer.
    public typealias Call = (_ target: String, _ body: [UInt8]) throws(ManagementClientError) -> Void

    public let name: String
    public let channel: String
    public let seconds: Double
    public private(set) var phase = Phase.waiting

    public init(name: String, channel: String, seconds: Double) {
        self.name = name
        self.channel = channel
        self.seconds = seconds
    }

    /// Starts the recording when the daemon accepts it, stops it `seconds` later (`now`: monotonic ns).
    public mutating func step(now: Int64, call: Call) {
        let body = { (members: [(String, JSONValue)]) in Array(JSONValue.object(members).encoded.utf8) }
        switch phase {
        case .waiting:
            do throws(ManagementClientError) {
                try call("/api/v1/records", body([("name", .string(name)), ("channel", .string(channel))]))
                phase = .recording(sinceNanoseconds: now)
            } catch where error.status == 409 {
                phase = .recording(sinceNanoseconds: now)   // our own start, its answer lost
            } catch {}
        case .recording(let since):
            guard Double(now - since) / 1e9 >= seconds else { return }
            do throws(ManagementClientError) {
                try call("/api/v1/records/stop", body([("name", .string(name))]))
                phase = .stopped
            } catch where error.status != nil {
                phase = .abandoned(error.description)
            } catch {}
        case .stopped, .abandoned:
            return
        }
    }
}

extension ManagementClient {
    /// `call` as a `TimedRecording.Call`: a POST whose answer's body is not needed.
    public func post(_ target: String, _ body: [UInt8]) throws(ManagementClientError) {
        _ = try call(target, method: "POST", body: body)
    }
}
