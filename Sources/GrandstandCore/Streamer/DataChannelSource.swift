/// A data channel: one message per datagram at a fixed interval, either the lines of a
/// JSON-lines file or a generated counter, framed as RTP (dynamic payload type) or raw UDP —
/// whichever the channel's SDP announces (`SDPBuilder`).
public struct DataChannelSource: StreamerSource {
    public enum Framing: Sendable, Equatable {
        /// RTP with this payload type; timestamps at `clockRate` from the message's due time.
        case rtp(payloadType: UInt8, identity: RTPIdentity, clockRate: Int64)
        /// The message is the whole UDP payload.
        case udp
    }

    public enum Messages: Sendable, Equatable {
        /// These messages in order (e.g. the non-empty lines of a JSON-lines file).
        case list([[UInt8]])
        /// `{"channel":NAME,"counter":N,"sentNanoseconds":T}` with N = 0, 1, 2, … and T the due time.
        case counter(channel: String)
    }

    public let flow: String
    public let destination: Endpoint
    public let messages: Messages
    public let framing: Framing
    public let startNanoseconds: Int64
    public let intervalNanoseconds: Int64
    /// Messages to send in all; nil repeats forever (a list loops, a counter counts on).
    public let limit: Int?
    public private(set) var sent = 0

    public init(flow: String, destination: Endpoint, messages: Messages, framing: Framing,
                startNanoseconds: Int64, intervalNanoseconds: Int64, limit: Int? = nil) {
        self.flow = flow
        self.destination = destination
        self.messages = messages
        self.framing = framing
        self.startNanoseconds = startNanoseconds
        self.intervalNanoseconds = max(intervalNanoseconds, 1)
        self.limit = limit
    }

    /// The lines of a JSON-lines file as messages: blank lines and a trailing newline dropped.
    public static func lines(of bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            .map { Array($0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0) }
            .filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
    }

    private var isExhausted: Bool {
        if let limit, sent >= limit { return true }
        if case .list(let list) = messages, list.isEmpty { return true }
        return false
    }

    public var nextDueNanoseconds: Int64? { isExhausted ? nil : startNanoseconds + Int64(sent) * intervalNanoseconds }

    public mutating func pop() -> [ScheduledDatagram] {
        guard let due = nextDueNanoseconds else { return [] }
        let message: [UInt8]
        switch messages {
        case .list(let list): message = list[sent % list.count]
        case .counter(let channel):
            message = Array("{\"channel\":\(DataChannelSource.jsonString(channel)),\"counter\":\(sent),\"sentNanoseconds\":\(due)}".utf8)
        }
        var payload: [UInt8] = []
        switch framing {
        case .udp:
            payload = message
        case .rtp(let type, let identity, let clockRate):
            payload.reserveCapacity(RTPHeader.size + message.count)
            RTPHeader.append(to: &payload, marker: true, payloadType: type,
                             sequenceNumber: identity.initialSequence &+ UInt16(truncatingIfNeeded: sent),
                             timestamp: identity.initialTimestamp &+ RTPHeader.ticks(due - startNanoseconds, clockRate: clockRate),
                             ssrc: identity.ssrc)
            payload.append(contentsOf: message)
        }
        sent += 1
        return [ScheduledDatagram(flow: flow, destination: destination, payload: payload, dueNanoseconds: due)]
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
