/// One file a FLUTE carousel sends: its Content-Location (relative path), bytes and type. A
/// large file comes with a `reader` instead of bytes and is read one source block at a time.
public struct FluteFile: Sendable, Equatable {
    public var path: String
    /// The file's bytes (empty when `reader` gives them).
    public var bytes: [UInt8]
    public var contentType: String?
    public var reader: (any FluteFileReader)?

    public init(path: String, bytes: [UInt8], contentType: String? = nil) {
        self.path = path
        self.bytes = bytes
        self.contentType = contentType
    }

    public init(path: String, reader: any FluteFileReader, contentType: String? = nil) {
        self.path = path
        self.bytes = []
        self.contentType = contentType
        self.reader = reader
    }

    public var size: Int { reader?.size ?? bytes.count }

    public static func == (a: FluteFile, b: FluteFile) -> Bool {
        a.path == b.path && a.bytes == b.bytes && a.contentType == b.contentType && a.reader?.version == b.reader?.version
    }
}

/// A file the sender reads a block at a time (adapter: pread on an open file), so a 230 MiB
/// bundle is never held whole.
public protocol FluteFileReader: Sendable {
    var size: Int { get }
    /// MD5 of the whole file (RFC 1864, for the FDT's Content-MD5), computed once.
    var md5: [UInt8] { get }
    /// Differs when the file changed (size, mtime, inode).
    var version: String { get }
    /// `count` bytes at `offset` (short only at the end); nil when the read fails.
    func read(at offset: Int, count: Int) -> [UInt8]?
}

/// A FLUTE (RFC 6726) carousel: every round sends the FDT instance and then each file as ALC
/// packets (Compact No-Code, or Reed-Solomon GF(2^8) with repair symbols), one packet every
/// `intervalNanoseconds`; the FDT is repeated before each file so a receiver that joins
/// mid-round learns it quickly. Packets are made a group of `interleaveBlocks` source blocks at
/// a time, as they are due, and sent round-robin across the group's blocks, so a burst of lost
/// packets costs each block only its share (RFC 5510 repairs per block; a burst of 86 packets,
/// seen from an emulated box's capture ring, defeated one block of 240 sent in order). Between
/// rounds `reload` (the caller's directory scan) may change the files: a changed or new file
/// gets a new TOI and the FDT a new instance id.
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
        /// Source blocks whose packets are sent interleaved (1: one block after the other). A
        /// burst of L lost packets then costs each block about L / interleaveBlocks; the sender
        /// holds this many blocks' packets.
        public var interleaveBlocks: Int
        /// Send Content-MD5 in the FDT (of the file before content encoding).
        public var md5: Bool
        /// Content-Encoding applied to every file (`gzip`; nil or `identity`: none). The FDT then
        /// gives Content-Length (the file) and Transfer-Length (the gzip stream) apart.
        public var contentEncoding: String?

        public init(tsi: UInt64 = 1, symbolLength: Int = 1024, maxBlockLength: Int = 64, repairSymbols: Int = 0,
                    intervalNanoseconds: Int64 = 1_000_000, rounds: Int? = nil, fdtLifetimeSeconds: Int64 = 86_400, md5: Bool = true,
                    contentEncoding: String? = nil, interleaveBlocks: Int = 1) {
            self.tsi = tsi
            self.symbolLength = symbolLength
            self.maxBlockLength = maxBlockLength
            self.repairSymbols = repairSymbols
            self.intervalNanoseconds = intervalNanoseconds
            self.rounds = rounds
            self.fdtLifetimeSeconds = fdtLifetimeSeconds
            self.md5 = md5
            self.contentEncoding = contentEncoding
            self.interleaveBlocks = interleaveBlocks
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
    /// The packets of the block (or FDT) being sent, and what comes next in the round.
    private var queue: [[UInt8]] = []
    private var queued = 0
    private var cursor: (file: Int, block: Int)?
    private var fdtPackets: [[UInt8]] = []
    private var due: Int64
    public private(set) var round = 0
    public private(set) var packetsSent = 0

    /// `math` is required when `options.repairSymbols > 0`.
    public init(flow: String, destination: Endpoint, files: [FluteFile], options: Options, startNanoseconds: Int64,
                math: (any ReedSolomonMath)? = nil, reload: (@Sendable () -> [FluteFile]?)? = nil) throws {
        guard options.symbolLength > 0, options.symbolLength <= 65_000, options.maxBlockLength > 0 else {
            throw StreamerError("FLUTE symbol length must be 1-65000 and block length ≥ 1")
        }
        guard (1...256).contains(options.interleaveBlocks) else {
            throw StreamerError("FLUTE interleaving must be 1-256 blocks")
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
        for file in files where file.reader == nil { out[file.path] = ContentCoding.gzip(file.bytes) }
        return out
    }

    private func transport(_ file: FluteFile) -> [UInt8] { transports[file.path] ?? file.bytes }

    /// Transfer-Length: the transport object's size (a reader's file is sent as is, no coding).
    private func transportSize(_ file: FluteFile) -> Int { file.reader?.size ?? transport(file).count }

    private mutating func assignTOI(_ path: String) {
        tois[path] = nextTOI
        nextTOI += 1
    }

    public var nextDueNanoseconds: Int64? {
        if queued >= queue.count, cursor == nil, let rounds = options.rounds, round >= rounds { return nil }
        return due
    }

    public mutating func pop() -> [ScheduledDatagram] {
        while queued >= queue.count {
            if cursor == nil {
                if let rounds = options.rounds, round >= rounds { return [] }
                startRound()
            }
            refill()
            if queued >= queue.count && cursor == nil { round += 1; due += options.intervalNanoseconds; return [] }
        }
        let payload = queue[queued]
        queued += 1
        packetsSent += 1
        let datagram = ScheduledDatagram(flow: flow, destination: destination, payload: payload, dueNanoseconds: due)
        due += options.intervalNanoseconds
        if queued >= queue.count, cursor == nil { round += 1 }
        return [datagram]
    }

    /// The next part of the round: the FDT before each file, then the file `interleaveBlocks`
    /// blocks at a time.
    private mutating func refill() {
        queue = []
        queued = 0
        guard let (index, block) = cursor else { return }
        if files.isEmpty {
            queue = fdtPackets
            cursor = nil
            return
        }
        let file = files[index]
        let blocks = info(length: transportSize(file)).blocks ?? []
        if block < 0 {
            queue = fdtPackets
        } else if block < blocks.count {
            let group = (block..<min(block + options.interleaveBlocks, blocks.count)).map {
                packets(toi: tois[file.path] ?? 0, file: file, blocks: blocks, block: $0, fdtID: nil)
            }
            queue = Self.interleaved(group)
        }
        let next = block < 0 ? 0 : block + options.interleaveBlocks
        if next < blocks.count { cursor = (index, next) }
        else if index + 1 < files.count { cursor = (index + 1, -1) }
        else { cursor = nil }
    }

    /// Packet i of every block, then packet i + 1 of every block: a block's packets are
    /// `blocks.count` apart (the last blocks' extra repairs close the group).
    static func interleaved(_ blocks: [[[UInt8]]]) -> [[UInt8]] {
        guard blocks.count > 1 else { return blocks.first ?? [] }
        var out: [[UInt8]] = []
        out.reserveCapacity(blocks.reduce(0) { $0 + $1.count })
        for i in 0..<(blocks.map(\.count).max() ?? 0) {
            for block in blocks where i < block.count { out.append(block[i]) }
        }
        return out
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
            let length = transportSize(file)
            let oti = info(length: length)
            let encoding = ContentCoding.isIdentity(options.contentEncoding) || file.reader != nil ? nil : options.contentEncoding
            return FDTInstance.File(toi: tois[file.path] ?? 0, contentLocation: file.path, contentLength: UInt64(file.size),
                                    transferLength: UInt64(length), contentType: file.contentType, contentEncoding: encoding,
                                    md5: options.md5 ? file.reader?.md5 ?? MD5.digest(file.bytes) : nil, fecEncodingID: encodingID,
                                    maxSourceBlockLength: oti.maxSourceBlockLength, symbolLength: oti.symbolLength,
                                    maxEncodingSymbols: options.repairSymbols > 0 ? oti.maxEncodingSymbols : nil)
        })
    }

    private mutating func startRound() {
        var changed = round == 0
        if round > 0, let fresh = reload?() {
            let old = Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
            for file in fresh where old[file.path] != file { assignTOI(file.path); changed = true }
            if Set(fresh.map(\.path)) != Set(files.map(\.path)) { changed = true }
            files = fresh
        }
        if changed && round > 0 { fdtInstanceID = (fdtInstanceID + 1) & 0xF_FFFF }
        let expires = UInt32(truncatingIfNeeded: due / 1_000_000_000 + FDTInstance.ntpUnixOffset + options.fdtLifetimeSeconds)
        let fdt = FluteFile(path: "", bytes: fdt(expires: expires).xml())
        let fdtBlocks = info(length: fdt.size).blocks ?? []
        fdtPackets = fdtBlocks.indices.flatMap { packets(toi: 0, file: fdt, blocks: fdtBlocks, block: $0, fdtID: fdtInstanceID) }
        queue = []
        queued = 0
        cursor = (0, -1)
    }

    /// ALC packets of one source block of an object: its sources, then its repairs. A reader's
    /// file is read for this block only.
    private func packets(toi: UInt64, file: FluteFile, blocks: [FECObjectInfo.Block], block sbn: Int, fdtID: UInt32?) -> [[UInt8]] {
        let length = transportSize(file)
        let oti = info(length: length)
        var extensions: [LCTExtension] = []
        if let fdtID { extensions.append(.fdt(version: 2, instanceID: fdtID)) }
        extensions.append(oti.ftiExtension)
        let header = LCTHeader(tsi: options.tsi, toi: toi, codepoint: encodingID, extensions: extensions)
        let e = options.symbolLength
        let block = blocks[sbn]
        let first = block.firstSymbol * e
        let bytes: ArraySlice<UInt8>
        if let reader = file.reader {
            guard let read = reader.read(at: first, count: min(length, first + block.sourceSymbols * e) - first) else { return [] }
            bytes = read[...]
        } else {
            bytes = transport(file)[first..<min(length, first + block.sourceSymbols * e)]
        }
        var out: [[UInt8]] = []
        do {
            var sources: [[UInt8]] = []
            for j in 0..<block.sourceSymbols {
                let start = bytes.startIndex + j * e
                guard start < bytes.endIndex else { break }
                let symbol = Array(bytes[start..<min(bytes.endIndex, start + e)])
                out.append(ALCPacket(header: header, sourceBlockNumber: UInt32(sbn), encodingSymbolID: UInt32(j), symbol: symbol[...])
                    .encode(encodingID: encodingID))
                if options.repairSymbols > 0 { sources.append(symbol + [UInt8](repeating: 0, count: e - symbol.count)) }
            }
            let m = block.encodingSymbols - block.sourceSymbols
            guard m > 0, sources.count == block.sourceSymbols, let math,
                  let repairs = try? math.encode(sourceCount: block.sourceSymbols, repairCount: m, symbolLength: e, sources: sources) else { return out }
            for (r, repair) in repairs.enumerated() {
                out.append(ALCPacket(header: header, sourceBlockNumber: UInt32(sbn), encodingSymbolID: UInt32(block.sourceSymbols + r),
                                     symbol: repair[...]).encode(encodingID: encodingID))
            }
        }
        return out
    }
}
