/// One file a FLUTE carousel sends: its Content-Location (relative path), bytes and type.
public struct FluteFile: Sendable, Equatable {
    public var path: String
    public var bytes: [UInt8]
    public var contentType: String?

    public init(path: String, bytes: [UInt8], contentType: String? = nil) {
        self.path = path
        self.bytes = bytes
        self.contentType = contentType
    }
}

/// A FLUTE (RFC 6726) carousel: every round sends the FDT instance and then each file as ALC
/// packets (Compact No-Code, or Reed-Solomon GF(2^8) with repair symbols), one packet every
/// `intervalNanoseconds`; the FDT is repeated before each file so a receiver that joins
/// mid-round learns it quickly. Between rounds `reload` (the caller's directory scan) may change
/// the files: a changed or new file gets a new TOI and the FDT a new instance id.
public struct FluteCarouselSource: StreamerSource {
    public struct Options: Sendable, Equatable {
        public var tsi: UInt64
        /// Encoding symbol length E (bytes per packet's symbol).
        public var symbolLength: Int
        /// Source symbols per block B (for Reed-Solomon, B + repairs ≤ 255).
        public var maxBlockLength: Int
        /// Reed-Solomon repair symbols per full block; 0 sends Compact No-Code (FEC Encoding ID 0).
        public var repairSymbols: Int
        public var intervalNanoseconds: Int64
        /// Rounds to send; nil repeats forever.
        public var rounds: Int?
        /// FDT instance lifetime from its creation.
        public var fdtLifetimeSeconds: Int64
        /// Send Content-MD5 in the FDT (of the file before content encoding).
        public var md5: Bool
        /// Content-Encoding applied to every file (`gzip`; nil or `identity`: none). The FDT then
        /// gives Content-Length (the file) and Transfer-Length (the gzip stream) apart.
        public var contentEncoding: String?

        public init(tsi: UInt64 = 1, symbolLength: Int = 1024, maxBlockLength: Int = 64, repairSymbols: Int = 0,
                    intervalNanoseconds: Int64 = 1_000_000, rounds: Int? = nil, fdtLifetimeSeconds: Int64 = 86_400, md5: Bool = true,
                    contentEncoding: String? = nil) {
            self.tsi = tsi
            self.symbolLength = symbolLength
            self.maxBlockLength = maxBlockLength
            self.repairSymbols = repairSymbols
            self.intervalNanoseconds = intervalNanoseconds
            self.rounds = rounds
            self.fdtLifetimeSeconds = fdtLifetimeSeconds
            self.md5 = md5
            self.contentEncoding = contentEncoding
        }
    }

    public let flow: String
    public let destination: Endpoint
    public let options: Options
    private let math: (any ReedSolomonMath)?
    private let reload: (@Sendable () -> [FluteFile]?)?
    private var files: [FluteFile] {
        didSet { transports = Self.transports(files, encoding: options.contentEncoding) }
    }
    /// Each file's transport object (its bytes after the content encoding), by path.
    private var transports: [String: [UInt8]] = [:]
    private var tois: [String: UInt64] = [:]
    private var nextTOI: UInt64 = 1
    public private(set) var fdtInstanceID: UInt32 = 0
    private var queue: [[UInt8]] = []
    private var queued = 0
    private var due: Int64
    public private(set) var round = 0
    public private(set) var packetsSent = 0

    /// `math` is required when `options.repairSymbols > 0`.
    public init(flow: String, destination: Endpoint, files: [FluteFile], options: Options, startNanoseconds: Int64,
                math: (any ReedSolomonMath)? = nil, reload: (@Sendable () -> [FluteFile]?)? = nil) throws {
        guard options.symbolLength > 0, options.symbolLength <= 65_000, options.maxBlockLength > 0 else {
            throw StreamerError("FLUTE symbol length must be 1-65000 and block length ≥ 1")
        }
        if !ContentCoding.isIdentity(options.contentEncoding), options.contentEncoding?.lowercased() != "gzip" {
            throw StreamerError("FLUTE content encoding must be gzip or identity")
        }
        if options.repairSymbols > 0 {
            guard math != nil else { throw StreamerError("FLUTE Reed-Solomon repair needs a Reed-Solomon codec") }
            guard options.maxBlockLength + options.repairSymbols <= 255 else {
                throw StreamerError("FLUTE Reed-Solomon: block length + repair symbols must be ≤ 255")
            }
        }
        self.flow = flow
        self.destination = destination
        self.options = options
        self.math = math
        self.reload = reload
        self.files = files
        transports = Self.transports(files, encoding: options.contentEncoding)
        due = startNanoseconds
        for file in files { assignTOI(file.path) }
    }

    private static func transports(_ files: [FluteFile], encoding: String?) -> [String: [UInt8]] {
        guard !ContentCoding.isIdentity(encoding) else { return [:] }
        var out: [String: [UInt8]] = [:]
        for file in files { out[file.path] = ContentCoding.gzip(file.bytes) }
        return out
    }

    private func transport(_ file: FluteFile) -> [UInt8] { transports[file.path] ?? file.bytes }

    private mutating func assignTOI(_ path: String) {
        tois[path] = nextTOI
        nextTOI += 1
    }

    public var nextDueNanoseconds: Int64? {
        if queued >= queue.count, let rounds = options.rounds, round >= rounds { return nil }
        return due
    }

    public mutating func pop() -> [ScheduledDatagram] {
        if queued >= queue.count {
            if let rounds = options.rounds, round >= rounds { return [] }
            startRound()
            if queue.isEmpty { round += 1; due += options.intervalNanoseconds; return [] }
        }
        let payload = queue[queued]
        queued += 1
        packetsSent += 1
        let datagram = ScheduledDatagram(flow: flow, destination: destination, payload: payload, dueNanoseconds: due)
        due += options.intervalNanoseconds
        if queued >= queue.count { round += 1 }
        return [datagram]
    }

    private var encodingID: UInt8 { options.repairSymbols > 0 ? FECObjectInfo.reedSolomonGF256 : FECObjectInfo.compactNoCode }

    private func info(length: Int) -> FECObjectInfo {
        FECObjectInfo(encodingID: encodingID, transferLength: UInt64(length), symbolLength: options.symbolLength,
                      maxSourceBlockLength: options.maxBlockLength,
                      maxEncodingSymbols: options.repairSymbols > 0 ? options.maxBlockLength + options.repairSymbols : nil)
    }

    /// The FDT instance describing the current files.
    public func fdt(expires: UInt32) -> FDTInstance {
        FDTInstance(expires: expires, complete: false, files: files.map { file in
            let transport = transport(file)
            let oti = info(length: transport.count)
            let encoding = ContentCoding.isIdentity(options.contentEncoding) ? nil : options.contentEncoding
            return FDTInstance.File(toi: tois[file.path] ?? 0, contentLocation: file.path, contentLength: UInt64(file.bytes.count),
                                    transferLength: UInt64(transport.count), contentType: file.contentType, contentEncoding: encoding,
                                    md5: options.md5 ? MD5.digest(file.bytes) : nil, fecEncodingID: encodingID,
                                    maxSourceBlockLength: oti.maxSourceBlockLength, symbolLength: oti.symbolLength,
                                    maxEncodingSymbols: options.repairSymbols > 0 ? oti.maxEncodingSymbols : nil)
        })
    }

    private mutating func startRound() {
        var changed = round == 0
        if round > 0, let fresh = reload?() {
            let old = Dictionary(files.map { ($0.path, $0.bytes) }, uniquingKeysWith: { a, _ in a })
            for file in fresh where old[file.path] != file.bytes { assignTOI(file.path); changed = true }
            if Set(fresh.map(\.path)) != Set(files.map(\.path)) { changed = true }
            files = fresh
        }
        if changed && round > 0 { fdtInstanceID = (fdtInstanceID + 1) & 0xF_FFFF }
        let expires = UInt32(truncatingIfNeeded: due / 1_000_000_000 + FDTInstance.ntpUnixOffset + options.fdtLifetimeSeconds)
        let fdtPackets = packets(toi: 0, bytes: fdt(expires: expires).xml(), fdtID: fdtInstanceID)
        queue = []
        queued = 0
        if files.isEmpty { queue = fdtPackets }
        for file in files {
            queue.append(contentsOf: fdtPackets)
            queue.append(contentsOf: packets(toi: tois[file.path] ?? 0, bytes: transport(file), fdtID: nil))
        }
    }

    /// ALC packets of one object: each block's sources, then its repairs.
    private func packets(toi: UInt64, bytes: [UInt8], fdtID: UInt32?) -> [[UInt8]] {
        let oti = info(length: bytes.count)
        guard let blocks = oti.blocks else { return [] }
        var extensions: [LCTExtension] = []
        if let fdtID { extensions.append(.fdt(version: 2, instanceID: fdtID)) }
        extensions.append(oti.ftiExtension)
        let header = LCTHeader(tsi: options.tsi, toi: toi, codepoint: encodingID, extensions: extensions)
        let e = options.symbolLength
        var out: [[UInt8]] = []
        for (sbn, block) in blocks.enumerated() {
            var sources: [[UInt8]] = []
            for j in 0..<block.sourceSymbols {
                let start = (block.firstSymbol + j) * e
                let symbol = Array(bytes[start..<min(bytes.count, start + e)])
                out.append(ALCPacket(header: header, sourceBlockNumber: UInt32(sbn), encodingSymbolID: UInt32(j), symbol: symbol[...])
                    .encode(encodingID: encodingID))
                if options.repairSymbols > 0 { sources.append(symbol + [UInt8](repeating: 0, count: e - symbol.count)) }
            }
            let m = block.encodingSymbols - block.sourceSymbols
            guard m > 0, let math, let repairs = try? math.encode(sourceCount: block.sourceSymbols, repairCount: m, symbolLength: e, sources: sources) else { continue }
            for (r, repair) in repairs.enumerated() {
                out.append(ALCPacket(header: header, sourceBlockNumber: UInt32(sbn), encodingSymbolID: UInt32(block.sourceSymbols + r),
                                     symbol: repair[...]).encode(encodingID: encodingID))
            }
        }
        return out
    }
}
