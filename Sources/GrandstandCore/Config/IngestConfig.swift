/// The ingest side of the configuration: which streamers may announce, static channels for
/// venues without announcements, and how SAP discovery listens and retires (docs/ingest.md).
extension GatewayConfig {
    /// `streamers.allow`: who may announce channels. Entries are addresses (`10.1.2.3`,
    /// `fd00::5`), prefixes (`10.1.2.0/24`) or `"*"` (anyone). Default `["*"]`: the license
    /// triplet already limits what is served; operators narrow this to their streamers.
    public struct Streamers: Sendable, Equatable {
        public var allow: [AddressPattern] = [.any]
    }

    /// A channel configured by hand (no SAP announcement; never retired).
    public struct StaticChannel: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable { case video, data, file }
        public var name: String
        public var kind: Kind
        /// The multicast group; nil for an SRT channel (`srt`).
        public var group: IPAddress?
        /// The UDP port (the SRT port for an SRT channel).
        public var port: UInt16
        /// Source for a source-specific join, if any.
        public var source: IPAddress?
        /// `"rtp"` (default) or `"udp"`: plain UDP, each payload one message (data) or whole TS
        /// packets (video; loss from TS continuity counters, no FEC).
        public var rtp: Bool = true
        public var fec: FECParameters = .none
        public var channelText: String?
        public var bandwidthKbps: Int?
        /// File channels: the FLUTE session's TSI (`tsi`); nil accepts any.
        public var fluteTSI: UInt64? = nil
        /// Video over SRT instead of multicast (SRTChannelConfig.swift); nil for multicast channels.
        public var srt: SRTSource? = nil
        /// Video: `programs`, which programs of a multi-program TS become channels.
        public var programs: ProgramSelection = .auto
        /// Video: `secondary`, the ST 2022-7 second path.
        public var secondPath: SecondPath? = nil
    }

    /// `discovery`: SAP groups listened to (port 9875) and the retirement policy. RFC 2974 §3.1
    /// would keep a silent session for max(10 × interval, 1 hour); a venue box retires after
    /// max(`retireIntervalMultiple` × the observed interval, `retireMinimumSeconds`) instead.
    public struct Discovery: Sendable, Equatable {
        public static let wellKnownSAPGroups: [IPAddress] = ["224.2.127.254", "239.255.255.255", "ff0e::2:7ffe"]
            .compactMap { IPAddress(parsing: $0) }
        public var sapGroups: [IPAddress] = Discovery.wellKnownSAPGroups
        public var retireMinimumSeconds = 60
        public var retireIntervalMultiple = 10
        /// How announced multi-program streams are split (`"auto"` or `"whole"`).
        public var programs: ProgramSelection = .auto
    }
}

/// An allow-list entry: one address, a prefix, or anyone.
public enum AddressPattern: Sendable, Equatable, CustomStringConvertible {
    case any
    case prefix(IPAddress, length: Int)

    /// Parses `*`, an address, or `address/length`; nil when malformed.
    public init?(parsing text: String) {
        if text == "*" { self = .any; return }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(parsing: parts[0]) else { return nil }
        let width = address.isIPv6 ? 128 : 32
        guard parts.count == 2 else { self = .prefix(address, length: width); return }
        guard let length = Int(parts[1]), (0...width).contains(length) else { return nil }
        self = .prefix(address, length: length)
    }

    public func matches(_ address: IPAddress) -> Bool {
        switch self {
        case .any: return true
        case .prefix(let base, let length):
            switch (base, address) {
            case let (.v4(a), .v4(b)):
                guard length > 0 else { return true }
                let mask: UInt32 = length >= 32 ? .max : ~(UInt32.max >> UInt32(length))
                return a & mask == b & mask
            case let (.v6(ah, al), .v6(bh, bl)):
                let highMask: UInt64 = length >= 64 ? .max : (length == 0 ? 0 : ~(UInt64.max >> UInt64(length)))
                let lowBits = length - 64
                let lowMask: UInt64 = lowBits >= 64 ? .max : (lowBits <= 0 ? 0 : ~(UInt64.max >> UInt64(lowBits)))
                return ah & highMask == bh & highMask && al & lowMask == bl & lowMask
            default:
                return false
            }
        }
    }

    public var description: String {
        switch self {
        case .any: return "*"
        case .prefix(let address, let length): return length == (address.isIPv6 ? 128 : 32) ? "\(address)" : "\(address)/\(length)"
        }
    }
}

extension GatewayConfig {
    static func decodeStreamers(_ root: JSONObjectView, _ reader: inout JSONReader) -> Streamers {
        var streamers = Streamers()
        guard let object = reader.object(root["streamers"], at: root.path("streamers"), known: ["allow"]) else { return streamers }
        guard let items = reader.array(object["allow"], at: object.path("allow")) else { return streamers }
        streamers.allow = items.compactMap { path, value in
            guard let text = reader.string(value, at: path) else { return nil }
            guard let pattern = AddressPattern(parsing: text) else {
                reader.report(path, "\"\(text)\" is not an IP address, an address/prefix-length or \"*\"")
                return nil
            }
            return pattern
        }
        return streamers
    }

    /// `fec`: the decoders' limits (docs/fec.md): `timeoutMilliseconds` (the latency budget: the
    /// Reed-Solomon window timeout and the cap on the derived waits (2022-1 matrix, RS hold); 200 ms
    /// and 1.5 s), `recommendedMaxSymbols` (`window_warning` above it; default 120) and
    /// `maxSymbols` (`window_error` above it; ≤ 255).
    static func decodeFECLimits(_ root: JSONObjectView, _ reader: inout JSONReader) -> FECDecoderConfiguration {
        var limits = FECDecoderConfiguration()
        guard let object = reader.object(root["fec"], at: root.path("fec"),
                                         known: ["timeoutMilliseconds", "recommendedMaxSymbols", "maxSymbols"]) else { return limits }
        if let milliseconds = reader.integer(object["timeoutMilliseconds"], at: object.path("timeoutMilliseconds"), in: 1...60_000) {
            limits.timeoutNanoseconds = Int64(milliseconds) * 1_000_000
            limits.matrixWaitBoundNanoseconds = Int64(milliseconds) * 1_000_000
        }
        limits.maxSymbols = reader.integer(object["maxSymbols"], at: object.path("maxSymbols"), in: 2...255) ?? limits.maxSymbols
        limits.recommendedMaxSymbols = reader.integer(object["recommendedMaxSymbols"], at: object.path("recommendedMaxSymbols"),
                                                      in: 2...limits.maxSymbols) ?? min(limits.recommendedMaxSymbols, limits.maxSymbols)
        return limits
    }

    static func decodeDiscovery(_ root: JSONObjectView, _ reader: inout JSONReader) -> Discovery {
        var discovery = Discovery()
        guard let object = reader.object(root["discovery"], at: root.path("discovery"),
                                         known: ["sapGroups", "retireMinimumSeconds", "retireIntervalMultiple", "programs"]) else { return discovery }
        if let items = reader.array(object["sapGroups"], at: object.path("sapGroups")) {
            discovery.sapGroups = items.compactMap { path, value in decodeGroup(value, at: path, &reader) }
            if items.isEmpty { reader.report(object.path("sapGroups"), "must list at least one group (or leave the key out)") }
        }
        discovery.retireMinimumSeconds = reader.integer(object["retireMinimumSeconds"], at: object.path("retireMinimumSeconds"),
                                                        in: 1...86_400) ?? discovery.retireMinimumSeconds
        discovery.retireIntervalMultiple = reader.integer(object["retireIntervalMultiple"], at: object.path("retireIntervalMultiple"),
                                                          in: 1...100) ?? discovery.retireIntervalMultiple
        if let value = object["programs"], let programs = decodePrograms(value, at: object.path("programs"), &reader) {
            if case .only = programs {
                reader.report(object.path("programs"), "announced channels take \"auto\" or \"whole\"; pick programs in a static channel")
            } else {
                discovery.programs = programs
            }
        }
        return discovery
    }

    /// An object's `group` and `port` (both required) and optional `source`: where a channel or its
    /// second path arrives. Each is nil when missing or invalid (reported at its path).
    static func decodeEndpoint(_ object: JSONObjectView, _ reader: inout JSONReader) -> (IPAddress?, Int?, IPAddress?) {
        let group = decodeGroup(object["group"], at: object.path("group"), &reader)
        if object["group"] == nil { reader.report(object.path("group"), "required string is missing") }
        let port = reader.integer(object["port"], at: object.path("port"), in: 1...65535)
        if object["port"] == nil { reader.report(object.path("port"), "required integer is missing") }
        var source: IPAddress?
        if let text = reader.string(object["source"], at: object.path("source")) {
            source = IPAddress(parsing: text)
            if source == nil { reader.report(object.path("source"), "\"\(text)\" is not an IP address") }
        }
        return (group, port, source)
    }

    /// `secondary`: `{"group":…,"port":…}` with optional `source` and `interface` (another capture
    /// interface), or `{"srt":{…}}` (the keys of a channel's `srt`); either with `maxSkewMilliseconds`
    /// (1…450, ST 2022-7's class C bound; default 50) and `silenceMilliseconds` (10…10000; default 200).
    static func decodeSecondPath(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader) -> SecondPath? {
        guard let object = reader.object(value, at: path, known: ["group", "port", "source", "interface", "srt",
                                                                  "maxSkewMilliseconds", "silenceMilliseconds"])
        else { return nil }
        func timing(_ reader: inout JSONReader) -> (skew: Int64, silence: Int64) {
            let skew = reader.integer(object["maxSkewMilliseconds"], at: object.path("maxSkewMilliseconds"), in: 1...450)
            let silence = reader.integer(object["silenceMilliseconds"], at: object.path("silenceMilliseconds"), in: 10...10_000)
            return (skew.map { Int64($0) * 1_000_000 } ?? SecondPath.defaultMaxSkewNanoseconds,
                    silence.map { Int64($0) * 1_000_000 } ?? SecondPath.defaultSilenceNanoseconds)
        }
        if object["srt"] != nil {
            for key in ["group", "port", "source", "interface"] where object[key] != nil {
                reader.report(object.path(key), "not used by a second path over SRT (the address is srt.url)")
            }
            let srt = decodeSRTSource(object["srt"], at: object.path("srt"), &reader)
            let (skewNanoseconds, silenceNanoseconds) = timing(&reader)
            guard let srt else { return nil }
            return SecondPath(srt: srt, maxSkewNanoseconds: skewNanoseconds, silenceNanoseconds: silenceNanoseconds)
        }
        let (group, port, source) = decodeEndpoint(object, &reader)
        let (skewNanoseconds, silenceNanoseconds) = timing(&reader)
        var interface: String?
        if let name = reader.string(object["interface"], at: object.path("interface")) {
            if let problem = interfaceNameProblem(name) { reader.report(object.path("interface"), problem) } else { interface = name }
        }
        guard let group, let port, object["interface"] == nil || interface != nil else { return nil }
        return SecondPath(endpoint: IngestEndpoint(group: group, port: UInt16(port), source: source), interface: interface,
                          maxSkewNanoseconds: skewNanoseconds, silenceNanoseconds: silenceNanoseconds)
    }

    /// Why `name` cannot be a Linux interface name (IFNAMSIZ: at most 15 bytes; no `/`, `:` or
    /// white space), nil when it can.
    static func interfaceNameProblem(_ name: String) -> String? {
        if name.utf8.count > 15 { return "\"\(name)\" is longer than an interface name can be (15 bytes)" }
        if name == "." || name == ".." || name.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) {
            return "\"\(name)\" is not an interface name"
        }
        return nil
    }

    /// `programs`: `"auto"`, `"whole"`, or a non-empty array of distinct program_numbers 1…65535
    /// (program 0 is the network PID, ISO/IEC 13818-1 §2.4.4.3).
    static func decodePrograms(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader) -> ProgramSelection? {
        if case .string(let text) = value {
            switch text {
            case "auto": return .auto
            case "whole": return .whole
            default:
                reader.report(path, "\"\(text)\" is not a program choice (\"auto\", \"whole\" or an array of program numbers)")
                return nil
            }
        }
        guard let items = reader.array(value, at: path) else { return nil }
        var numbers: [UInt16] = []
        for (itemPath, item) in items {
            guard let number = reader.integer(item, at: itemPath, in: 1...65535) else { continue }
            if numbers.contains(UInt16(number)) { reader.report(itemPath, "program \(number) is listed twice"); continue }
            numbers.append(UInt16(number))
        }
        if items.isEmpty { reader.report(path, "must list at least one program number (or use \"whole\")") }
        return numbers.isEmpty ? nil : .only(numbers)
    }

    static func decodeGroup(_ value: JSONValue?, at path: JSONPath, _ reader: inout JSONReader) -> IPAddress? {
        guard let text = reader.string(value, at: path) else { return nil }
        guard let address = IPAddress(parsing: text) else {
            reader.report(path, "\"\(text)\" is not an IP address")
            return nil
        }
        guard address.isMulticast else {
            reader.report(path, "\(text) is not a multicast group (224.0.0.0/4 or ff00::/8)")
            return nil
        }
        return address
    }

    static let staticChannelKeys: Set<String> = ["name", "kind", "group", "port", "source", "transport", "fec", "tsi", "channelText", "bandwidthKbps",
                                                 "programs", "secondary", "srt"]

    static func decodeChannels(_ root: JSONObjectView, _ reader: inout JSONReader) -> [StaticChannel] {
        guard let items = reader.array(root["channels"], at: root.path("channels")) else { return [] }
        var channels: [StaticChannel] = []
        var endpoints: [String: JSONPath] = [:]
        for (path, value) in items {
            guard let object = reader.object(value, at: path, known: staticChannelKeys) else { continue }
            if object["srt"] != nil {
                if let channel = decodeSRTChannel(object, &reader), let srt = channel.srt {
                    let key = "srt \(srt.mode == .listener ? "" : srt.host) \(srt.port) \(srt.mode)"
                    if let first = endpoints[key] { reader.report(object.path("srt"), "\(srt) is already used by \(first)"); continue }
                    endpoints[key] = path
                    channels.append(channel)
                }
                continue
            }
            let name = reader.string(object["name"], at: object.path("name"), required: true)
            var kind: StaticChannel.Kind?
            if let text = reader.string(object["kind"], at: object.path("kind"), required: true) {
                kind = StaticChannel.Kind(rawValue: text)
                if kind == nil { reader.report(object.path("kind"), "\"\(text)\" is not a channel kind (video, data, file)") }
            }
            let (group, port, source) = decodeEndpoint(object, &reader)
            var rtp = true
            if let text = reader.string(object["transport"], at: object.path("transport")) {
                switch text {
                case "rtp": rtp = true
                case "udp": rtp = false
                default: reader.report(object.path("transport"), "\"\(text)\" is not a transport (rtp, udp)")
                }
            }
            let fec = object["fec"].flatMap { decodeFEC($0, at: object.path("fec"), mediaPort: port.map { UInt16($0) } ?? 0, &reader) }
            var tsi: UInt64?
            if let value = object["tsi"] {
                if kind != .file {
                    reader.report(object.path("tsi"), "only file channels (FLUTE) have a TSI")
                } else if let number = reader.integer(value, at: object.path("tsi"), in: 0...(1 << 48) - 1) {
                    tsi = UInt64(number)
                }
            }
            if kind == .file, object["fec"] != nil {
                reader.report(object.path("fec"), "file channels carry their FEC inside FLUTE (its FEC Encoding ID); leave fec out")
            }
            if kind == .file, object["transport"] != nil {
                reader.report(object.path("transport"), "file channels are FLUTE over UDP; leave transport out")
            }
            if !rtp, let fec, fec != .none {
                reader.report(object.path("fec"), "FEC needs RTP sequence numbers; a \"udp\" channel finds loss from TS continuity counters")
            }
            var programs = ProgramSelection.auto
            if let value = object["programs"] {
                if kind != .video {
                    reader.report(object.path("programs"), "only video channels carry MPEG-TS programs")
                } else if let chosen = decodePrograms(value, at: object.path("programs"), &reader) {
                    programs = chosen
                }
            }
            var secondPath: SecondPath? = nil
            if let value = object["secondary"] {
                if kind != .video {
                    reader.report(object.path("secondary"), "only video channels take a second path (SMPTE ST 2022-7)")
                } else {
                    secondPath = decodeSecondPath(value, at: object.path("secondary"), &reader)
                    if let second = secondPath?.endpoint, secondPath?.interface == nil, let group, let port,
                       second == IngestEndpoint(group: group, port: UInt16(port), source: source) {
                        reader.report(object.path("secondary"), "is the channel's own group, port and source; a second path must differ "
                                      + "(or arrive on another interface)")
                        secondPath = nil
                    }
                    if secondPath?.srt != nil, let fec, fec != .none {
                        reader.report(object.path("fec"), "a pair with an SRT path fails over on silence and carries TS without FEC; leave fec out")
                        secondPath = nil
                    }
                }
            }
            let text = reader.string(object["channelText"], at: object.path("channelText"), nonEmpty: false)
            let bandwidth = reader.integer(object["bandwidthKbps"], at: object.path("bandwidthKbps"), in: 0...10_000_000)
            guard let name, let kind, let group, let port else { continue }
            let key = "\(group) \(port)"
            if let first = endpoints[key] {
                reader.report(path, "\(group):\(port) is already used by \(first)")
                continue
            }
            endpoints[key] = path
            if let second = secondPath?.endpoint {
                // On another interface the same (group, port) is another stream (two VLANs often reuse one group).
                let secondKey = "\(second.group) \(second.port)" + (secondPath?.interface.map { " on \($0)" } ?? "")
                if let first = endpoints[secondKey] {
                    reader.report(path.appending("secondary"), "\(second.group):\(second.port) is already used by \(first)")
                    continue
                }
                endpoints[secondKey] = path.appending("secondary")
            }
            if let srt = secondPath?.srt {
                let key = "srt \(srt.mode == .listener ? "" : srt.host) \(srt.port) \(srt.mode)"
                if let first = endpoints[key] {
                    reader.report(path.appending("secondary").appending("srt"), "\(srt) is already used by \(first)")
                    continue
                }
                endpoints[key] = path.appending("secondary")
            }
            if object["fec"] != nil, fec == nil { continue }
            channels.append(StaticChannel(name: name, kind: kind, group: group, port: UInt16(port), source: source,
                                          rtp: kind == .file ? false : rtp, fec: fec ?? .none, channelText: text,
                                          bandwidthKbps: bandwidth, fluteTSI: tsi, programs: programs, secondPath: secondPath))
        }
        return channels
    }

    /// `{"scheme":"none"}`, `{"scheme":"smpte2022-1","L":10,"D":5}` (L, D optional),
    /// `{"scheme":"reed-solomon","k":20,"m":4,"repairPort":5002}` (repairPort defaults to port + 2).
    static func decodeFEC(_ value: JSONValue, at path: JSONPath, mediaPort: UInt16, _ reader: inout JSONReader) -> FECParameters? {
        guard let object = reader.object(value, at: path, known: ["scheme", "L", "D", "k", "m", "repairPort"]) else { return nil }
        guard let scheme = reader.string(object["scheme"], at: object.path("scheme"), required: true) else { return nil }
        func reject(_ keys: [String]) -> Bool {
            var bad = false
            for key in keys where object[key] != nil {
                reader.report(object.path(key), "not a parameter of scheme \(scheme)")
                bad = true
            }
            return bad
        }
        switch scheme {
        case "none":
            return reject(["L", "D", "k", "m", "repairPort"]) ? nil : FECParameters.none
        case "smpte2022-1":
            let columns = reader.integer(object["L"], at: object.path("L"), in: 1...20)
            let rows = reader.integer(object["D"], at: object.path("D"), in: 1...20)
            guard !reject(["k", "m", "repairPort"]) else { return nil }
            if (object["L"] != nil && columns == nil) || (object["D"] != nil && rows == nil) { return nil }
            if let problem = FECParameters.problem(columns: columns, rows: rows) {
                reader.report(path, problem)
                return nil
            }
            return .smpte2022_1(columns: columns, rows: rows)
        case "reed-solomon":
            let k = reader.integer(object["k"], at: object.path("k"), in: 1...254)
            let m = reader.integer(object["m"], at: object.path("m"), in: 1...254)
            if object["k"] == nil { reader.report(object.path("k"), "required integer is missing") }
            if object["m"] == nil { reader.report(object.path("m"), "required integer is missing") }
            let repairPort = reader.integer(object["repairPort"], at: object.path("repairPort"), in: 1...65535)
            guard !reject(["L", "D"]), let k, let m, object["repairPort"] == nil || repairPort != nil else { return nil }
            if let problem = FECParameters.problem(k: k, m: m) {
                reader.report(path, problem)
                return nil
            }
            if let repairPort, repairPort == Int(mediaPort) {
                reader.report(object.path("repairPort"), "must differ from the channel's port")
                return nil
            }
            return .reedSolomon(k: k, m: m, repairPort: repairPort.map { UInt16($0) } ?? mediaPort &+ 2)
        default:
            reader.report(object.path("scheme"), "\"\(scheme)\" is not a FEC scheme (none, smpte2022-1, reed-solomon)")
            return nil
        }
    }
}
