import GrandstandCore
import GrandstandRuntime
import Synchronization
import HTTPServer

/// `/channels/ID/events`: a data channel's messages as Server-Sent Events (WHATWG HTML §9.2).
/// Each event is `id: SEQUENCE` plus one `data:` line holding the same JSON object as an entry of
/// `messages.json`. `Last-Event-ID` replays the newer messages still in the ring (the whole ring
/// when that id is unknown: older than the ring or from before a restart); without it only new
/// messages are sent. A slow client's queue is bounded (HTTPStream: oldest events dropped).
enum FanEvents {
    static let limits: HTTPStream.Limits = {
        var limits = HTTPStream.Limits()
        limits.maxQueuedChunks = 256
        limits.maxQueuedBytes = 256 * 1024
        limits.heartbeat = Array(": keepalive\n\n".utf8)
        limits.heartbeatSeconds = 15
        return limits
    }()

    static func open(_ request: HTTPRequest, channel id: String, gateway: Gateway) -> HTTPResponse {
        let headers: [(name: String, value: String)] = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                                                        ("X-Accel-Buffering", "no")]
        let lastID = request.header("Last-Event-ID").flatMap { Int($0.filter { $0 != " " && $0 != "\t" }) }
        guard request.method == "GET" else {
            guard gateway.dataMessages(id) != nil else { return .text(404, "no such data channel") }
            return HTTPResponse(status: 200, headers: headers)
        }
        let stream = HTTPStream(limits: limits)
        // The reconnection delay a browser's EventSource uses after the stream breaks.
        stream.send(Array("retry: 2000\n\n".utf8))
        let subscribed = gateway.withDataMessages(id) { ring in
            var from = Int.max
            if let last = lastID {
                let oldest = ring.first?.sequence ?? 1, newest = ring.last?.sequence ?? 0
                // Known when the ring holds everything after it; otherwise send the whole ring.
                from = last >= oldest - 1 && last <= newest ? last : 0
            }
            for message in ring where message.sequence > from { stream.send(event(message)) }
            gateway.dataEvents.subscribe(id, stream)
            return true
        }
        guard subscribed == true else { return .text(404, "no such data channel") }
        return .stream(stream, headers: headers)
    }

    /// One SSE event: `id:` then a single `data:` line of JSON (JSON escapes every newline).
    static func event(_ message: Gateway.DataMessage) -> [UInt8] {
        var bytes = Array("id: \(message.sequence)\ndata: ".utf8)
        bytes.append(contentsOf: ChannelCatalog.messageJSON(message).encoded.utf8)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }
}

/// The SSE subscribers per data channel. `publish` runs under the gateway's lock on the capture
/// thread: it encodes once and queues to each stream (bounded, never blocking); closed streams
/// are dropped on the way.
final class DataEventHub: Sendable {
    private let subscribers = Mutex<[String: [HTTPStream]]>([:])

    func subscribe(_ channel: String, _ stream: HTTPStream) {
        subscribers.withLock { $0[channel, default: []].append(stream) }
    }

    func publish(_ channel: String, _ message: Gateway.DataMessage) {
        subscribers.withLock { subscribers in
            guard let streams = subscribers[channel], !streams.isEmpty else { return }
            let bytes = FanEvents.event(message)
            subscribers[channel] = streams.filter { $0.send(bytes) }
        }
    }

    /// Open subscriptions (closed ones are counted until the next message prunes them).
    var count: Int { subscribers.withLock { $0.values.reduce(0) { $0 + $1.filter(\.isOpen).count } } }
}
