/// A tolerant SDP parser (RFC 8866 §5): lines end in CRLF or LF, blank lines and unknown line
/// types are skipped, but each known line is checked and the first error names its line.
public enum SDPParser {
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "SDP line \(line): \(reason)" }
    }

    public static func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> SessionDescription {
        try parse(String(decoding: bytes, as: UTF8.self))
    }

    public static func parse(_ text: String) throws(Failure) -> SessionDescription {
        var version: Int? = nil
        var origin: SessionDescription.Origin? = nil
        var name: String? = nil
        var session = SessionDescription(version: 0, origin: .init(username: "", sessionID: "", sessionVersion: "",
                                                                   networkType: "", addressType: "", address: ""),
                                         name: "")
        var number = 0
        var lastLine = 1   // the last non-blank line, where a missing o=/s= is reported
        // "\r\n" is one Character in Swift, so split on both forms.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            lastLine = number
            func fail(_ reason: String) -> Failure { Failure(line: number, reason: reason) }
            guard let type = line.first, type.isASCII, type.isLetter, line.dropFirst().first == "=" else {
                throw fail("expected <type>=<value>")
            }
            let value = line.dropFirst(2)
            if version == nil {
                guard type == "v" else { throw fail("the first line must be v=") }
                guard value == "0" else { throw fail("unsupported SDP version \(value)") }
                version = 0
                continue
            }
            let inMedia = !session.media.isEmpty
            switch type {
            case "v": throw fail("repeated v=")
            case "o":
                guard origin == nil, !inMedia else { throw fail("o= must appear once, at session level") }
                let f = fields(value)
                guard f.count == 6 else { throw fail("o= needs 6 fields, got \(f.count)") }
                guard isNumeric(f[1]), isNumeric(f[2]) else { throw fail("o= sess-id and sess-version must be numeric") }
                origin = .init(username: f[0], sessionID: f[1], sessionVersion: f[2], networkType: f[3],
                               addressType: f[4], address: f[5])
            case "s":
                guard name == nil, !inMedia else { throw fail("s= must appear once, at session level") }
                name = String(value)
            case "i":
                if inMedia { session.media[session.media.count - 1].title = String(value) }
                else { session.information = String(value) }
            case "u":
                if !inMedia { session.uri = String(value) }
            case "c":
                let connection = try parseConnection(value, fail)
                if inMedia { session.media[session.media.count - 1].connections.append(connection) }
                else { session.connection = connection }
            case "b":
                guard let colon = value.firstIndex(of: ":"), let amount = Int(value[value.index(after: colon)...]),
                      amount >= 0, colon > value.startIndex else { throw fail("b= must be <bwtype>:<bandwidth>") }
                let bandwidth = SessionDescription.Bandwidth(type: String(value[..<colon]), value: amount)
                if inMedia { session.media[session.media.count - 1].bandwidths.append(bandwidth) }
                else { session.bandwidths.append(bandwidth) }
            case "t":
                let f = fields(value)
                guard f.count == 2, let start = UInt64(f[0]), let stop = UInt64(f[1]) else {
                    throw fail("t= must be <start-time> <stop-time>")
                }
                session.timings.append(.init(start: start, stop: stop))
            case "a":
                let attribute: SessionDescription.Attribute
                if let colon = value.firstIndex(of: ":") {
                    attribute = .init(name: String(value[..<colon]), value: String(value[value.index(after: colon)...]))
                } else {
                    attribute = .init(name: String(value), value: nil)
                }
                guard !attribute.name.isEmpty else { throw fail("a= has no attribute name") }
                if inMedia { session.media[session.media.count - 1].attributes.append(attribute) }
                else { session.attributes.append(attribute) }
            case "m":
                session.media.append(try parseMedia(value, fail))
            default:
                continue   // e=, p=, r=, z=, k= and unknown types: not used
            }
        }
        guard version != nil else { throw Failure(line: lastLine, reason: "empty description (no v= line)") }
        guard let origin else { throw Failure(line: lastLine, reason: "missing o= line") }
        guard let name else { throw Failure(line: lastLine, reason: "missing s= line") }
        session.origin = origin
        session.name = name
        return session
    }

    /// The `o=` line of a text that may be a whole description or just that line, as SAP
    /// deletion packets carry (RFC 2974 §3); nil when there is none or it is malformed.
    public static func origin(in text: String) -> SessionDescription.Origin? {
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            guard line.hasPrefix("o=") else { continue }
            let f = fields(line.dropFirst(2))
            guard f.count == 6, isNumeric(f[1]), isNumeric(f[2]) else { return nil }
            return .init(username: f[0], sessionID: f[1], sessionVersion: f[2], networkType: f[3], addressType: f[4], address: f[5])
        }
        return nil
    }

    static func fields(_ value: Substring) -> [String] {
        value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    static func isNumeric(_ text: String) -> Bool { !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }

    /// `c=<nettype> <addrtype> <connection-address>` with `/ttl` (IP4 multicast) and `/count`.
    static func parseConnection(_ value: Substring, _ fail: (String) -> Failure) throws(Failure) -> SessionDescription.Connection {
        let f = fields(value)
        guard f.count == 3 else { throw fail("c= needs 3 fields, got \(f.count)") }
        let parts = f[2].split(separator: "/", omittingEmptySubsequences: false)
        guard let base = parts.first, !base.isEmpty, parts.count <= 3 else { throw fail("bad connection address \(f[2])") }
        var ttl: Int? = nil, count = 1
        let numbers = parts.dropFirst().map { Int($0) }
        guard numbers.allSatisfy({ ($0 ?? -1) >= 0 }) else { throw fail("bad connection address \(f[2])") }
        let values = numbers.compactMap { $0 }
        if f[1] == "IP4" && values.count >= 1 {
            guard values[0] <= 255 else { throw fail("TTL \(values[0]) is out of range 0...255") }
            ttl = values[0]
            if values.count == 2 { count = values[1] }
        } else if values.count == 1 {
            count = values[0]
        } else if values.count > 1 {
            throw fail("an IP6 connection address has no TTL")
        }
        guard count >= 1 else { throw fail("address count must be at least 1") }
        return .init(networkType: f[0], addressType: f[1], address: String(base), ttl: ttl, addressCount: count)
    }

    /// `m=<media> <port>[/<number of ports>] <proto> <fmt> ...`
    static func parseMedia(_ value: Substring, _ fail: (String) -> Failure) throws(Failure) -> SessionDescription.Media {
        let f = fields(value)
        guard f.count >= 4 else { throw fail("m= needs <media> <port> <proto> <fmt>...") }
        let portParts = f[1].split(separator: "/", omittingEmptySubsequences: false)
        guard let port = portParts.first.flatMap({ UInt16($0) }), portParts.count <= 2 else { throw fail("bad port \(f[1])") }
        var count = 1
        if portParts.count == 2 {
            guard let n = Int(portParts[1]), n >= 1 else { throw fail("bad port count \(f[1])") }
            count = n
        }
        return .init(media: f[0], port: port, portCount: count, proto: f[2], formats: Array(f[3...]), title: nil)
    }
}
