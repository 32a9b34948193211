/// One Server-Sent Event (WHATWG HTML §9.2): what `grandstand logs --follow` reads from
/// `/api/v1/logs?follow=1`, one journal entry per event, its cursor as the id.
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String

    public init(id: String? = nil, event: String? = nil, data: String) {
        self.id = id
        self.event = event
        self.data = data
    }

    /// The wire form: `id:`/`event:` lines, one `data:` line per line of data, a blank line.
    public var encoded: String {
        var out = ""
        if let id { out += "id: \(id)\n" }
        if let event { out += "event: \(event)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { out += "data: \(line)\n" }
        return out + "\n"
    }
}

/// Splits an event stream into events as bytes arrive (any chunking); comments (`: keepalive`)
/// and unknown fields are skipped, CR LF and LF line ends both accepted.
public struct ServerSentEventParser: Sendable {
    private var buffer: [UInt8] = []
    private var id: String?
    private var event: String?
    private var data: [String] = []
    private var hasData = false

    public init() {}

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        buffer.append(contentsOf: bytes)
        var events: [ServerSentEvent] = []
        var start = 0
        while let newline = buffer[start...].firstIndex(of: 10) {
            var end = newline
            if end > start, buffer[end - 1] == 13 { end -= 1 }
            let line = String(decoding: buffer[start..<end], as: UTF8.self)
            start = newline + 1
            if line.isEmpty {
                if hasData { events.append(ServerSentEvent(id: id, event: event, data: data.joined(separator: "\n"))) }
                event = nil
                data = []
                hasData = false
                continue
            }
            if line.hasPrefix(":") { continue }
            let name: Substring, value: Substring
            if let colon = line.firstIndex(of: ":") {
                name = line[..<colon]
                let rest = line[line.index(after: colon)...]
                value = rest.hasPrefix(" ") ? rest.dropFirst() : rest
            } else {
                name = Substring(line)
                value = ""
            }
            switch name {
            case "data": data.append(String(value)); hasData = true
            case "id": id = String(value)
            case "event": event = String(value)
            default: break
            }
        }
        buffer.removeFirst(start)
        return events
    }
}
