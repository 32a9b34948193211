/// Where a static video channel's MPEG-TS comes from over SRT (draft-sharabayko-srt, live mode):
/// `srt://host:port`, the side that starts the handshake ("Caller-Listener Handshake"), the
/// passphrase the stream is encrypted with ("Encryption": AES key of `keyLength` bytes) and the
/// receiver's latency (the TSBPD delay that bounds retransmission).
public struct SRTSource: Sendable, Equatable, CustomStringConvertible {
    /// Caller: the gateway connects to `host:port` (and reconnects). Listener: the gateway binds
    /// `host:port` (empty host: every address) and accepts one peer at a time.
    public enum Mode: String, Sendable, Equatable { case caller, listener }

    public var host: String
    public var port: UInt16
    public var mode: Mode
    /// 10–79 characters (libsrt `SRTO_PASSPHRASE`); nil: unencrypted.
    public var passphrase: String?
    /// AES key length in bytes (`SRTO_PBKEYLEN`): 16, 24 or 32; meaningful with a passphrase.
    public var keyLength: Int
    /// `SRTO_LATENCY`: how long the receiver holds packets for retransmission before delivery.
    public var latencyMilliseconds: Int

    public static let defaultLatencyMilliseconds = 120
    public static let passphraseLengths = 10...79
    public static let keyLengths = [16, 24, 32]

    public init(host: String, port: UInt16, mode: Mode, passphrase: String? = nil, keyLength: Int = 16,
                latencyMilliseconds: Int = SRTSource.defaultLatencyMilliseconds) {
        self.host = host
        self.port = port
        self.mode = mode
        self.passphrase = passphrase
        self.keyLength = keyLength
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// `srt://host:port` (IPv6 hosts in brackets), never the passphrase.
    public var url: String { "srt://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    public var description: String { "\(url) (\(mode.rawValue))" }

    /// Splits `srt://host:port` into host and port; the reason why not otherwise. Settings go in
    /// their own keys, so a query string is refused rather than half-honoured.
    public static func parse(url text: String) -> Result<(host: String, port: UInt16), SRTURLProblem> {
        guard text.hasPrefix("srt://") else { return .failure(SRTURLProblem("must start with srt://")) }
        let rest = text.dropFirst("srt://".count)
        if rest.contains("?") || rest.contains("/") {
            return .failure(SRTURLProblem("has a path or query: give mode, passphrase and latency as their own keys"))
        }
        let host: Substring
        let portText: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else {
                return .failure(SRTURLProblem("an IPv6 host needs the form srt://[address]:port"))
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            portText = rest[rest.index(close, offsetBy: 2)...]
        } else {
            guard let colon = rest.lastIndex(of: ":") else { return .failure(SRTURLProblem("has no :port")) }
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
            if host.contains(":") { return .failure(SRTURLProblem("an IPv6 host needs the form srt://[address]:port")) }
        }
        guard let port = UInt16(portText), port > 0 else {
            return .failure(SRTURLProblem("\"\(portText)\" is not a port (1...65535)"))
        }
        if host.contains(where: { $0 == " " || $0 == "@" }) { return .failure(SRTURLProblem("\"\(host)\" is not a host")) }
        return .success((String(host), port))
    }
}

/// Why a text is not an `srt://host:port` URL.
public struct SRTURLProblem: Error, Equatable, Sendable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension GatewayConfig {
    static let srtKeys: Set<String> = ["url", "mode", "passphrase", "keyLength", "latencyMilliseconds"]

    /// A static channel with an `srt` object: `{"name":…,"kind":"video","srt":{"url":"srt://host:port",
    /// "mode":"caller"|"listener","passphrase":…,"keyLength":16|24|32,"latencyMilliseconds":120}}`.
    /// Multicast keys (group, port, source, transport, tsi), FEC and a second path do not apply
    /// (SRT repairs loss by retransmission within its latency); `programs` does, as on multicast.
    /// Nil when something is wrong (reported).
    static func decodeSRTChannel(_ object: JSONObjectView, _ reader: inout JSONReader) -> StaticChannel? {
        let name = reader.string(object["name"], at: object.path("name"), required: true)
        let kind = reader.string(object["kind"], at: object.path("kind"), required: true)
        if let kind, kind != "video" { reader.report(object.path("kind"), "an SRT channel carries MPEG-TS: kind must be video") }
        for key in ["group", "port", "source", "transport", "tsi"] where object[key] != nil {
            reader.report(object.path(key), "not used by an SRT channel (the address is srt.url)")
        }
        if object["secondary"] != nil {
            reader.report(object.path("secondary"), "an SRT channel takes no second path: make the multicast stream the channel "
                          + "and give SRT as its secondary ({\"srt\":{…}})")
        }
        var programs = ProgramSelection.auto
        if let value = object["programs"], let chosen = decodePrograms(value, at: object.path("programs"), &reader) { programs = chosen }
        if object["fec"] != nil {
            reader.report(object.path("fec"), "SRT recovers loss by retransmission within its latency; leave fec out")
        }
        let text = reader.string(object["channelText"], at: object.path("channelText"), nonEmpty: false)
        let bandwidth = reader.integer(object["bandwidthKbps"], at: object.path("bandwidthKbps"), in: 0...10_000_000)
        guard let source = decodeSRTSource(object["srt"], at: object.path("srt"), &reader) else { return nil }
        guard let name, kind == "video" else { return nil }
        var channel = StaticChannel(name: name, kind: .video, group: nil, port: source.port, rtp: false,
                                    channelText: text, bandwidthKbps: bandwidth)
        channel.srt = source
        channel.programs = programs
        return channel
    }

    /// An `srt` object (a channel's, or a second path's): `{"url":"srt://host:port","mode":"caller"|"listener",
    /// "passphrase":…,"keyLength":16|24|32,"latencyMilliseconds":120}`. Nil when something is wrong (reported).
    static func decodeSRTSource(_ value: JSONValue?, at path: JSONPath, _ reader: inout JSONReader) -> SRTSource? {
        guard let srt = reader.object(value, at: path, known: srtKeys) else { return nil }
        var address: (host: String, port: UInt16)?
        if let url = reader.string(srt["url"], at: srt.path("url"), required: true) {
            switch SRTSource.parse(url: url) {
            case .success(let parsed): address = parsed
            case .failure(let problem): reader.report(srt.path("url"), "\"\(url)\" \(problem.reason)")
            }
        }
        var mode: SRTSource.Mode?
        if let text = reader.string(srt["mode"], at: srt.path("mode"), required: true) {
            mode = SRTSource.Mode(rawValue: text)
            if mode == nil { reader.report(srt.path("mode"), "\"\(text)\" is not an SRT mode (caller, listener)") }
        }
        if mode == .caller, let host = address?.host, host.isEmpty || host == "0.0.0.0" || host == "::" {
            reader.report(srt.path("url"), "a caller needs the peer's host (srt://host:port)")
            mode = nil
        }
        var passphrase: String?
        if let phrase = reader.string(srt["passphrase"], at: srt.path("passphrase")) {
            if SRTSource.passphraseLengths.contains(phrase.utf8.count) {
                passphrase = phrase
            } else {
                reader.report(srt.path("passphrase"), "must be 10 to 79 characters long (SRT), not \(phrase.utf8.count)")
            }
        }
        var keyLength = 16
        if let value = srt["keyLength"] {
            if srt["passphrase"] == nil { reader.report(srt.path("keyLength"), "only meaningful with a passphrase") }
            if let bytes = reader.integer(value, at: srt.path("keyLength"), in: 0...64) {
                if SRTSource.keyLengths.contains(bytes) { keyLength = bytes } else {
                    reader.report(srt.path("keyLength"), "\(bytes) is not an AES key length in bytes (16, 24, 32)")
                }
            }
        }
        let latency = reader.integer(srt["latencyMilliseconds"], at: srt.path("latencyMilliseconds"), in: 20...60_000)
        guard let address, let mode, srt["passphrase"] == nil || passphrase != nil,
              srt["latencyMilliseconds"] == nil || latency != nil else { return nil }
        return SRTSource(host: address.host, port: address.port, mode: mode, passphrase: passphrase, keyLength: keyLength,
                         latencyMilliseconds: latency ?? SRTSource.defaultLatencyMilliseconds)
    }
}

extension SRTSource {
    /// channels.json's `srt` object: url, mode, latency and whether it is encrypted (never the
    /// passphrase itself).
    public var json: JSONValue {
        let key: JSONValue = passphrase == nil ? .null : .number(Double(keyLength))
        let members: [(String, JSONValue)] = [
            ("encrypted", .bool(passphrase != nil)), ("keyLength", key), ("latencyMilliseconds", .number(Double(latencyMilliseconds))),
            ("mode", .string(mode.rawValue)), ("url", .string(url)),
        ]
        return .object(members)
    }
}
