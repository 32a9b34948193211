/// A complete, verified file of a FLUTE session.
public struct FluteObject: Sendable, Equatable {
    public var tsi: UInt64
    public var toi: UInt64
    public var contentLocation: String
    public var contentType: String?
    public var fdtInstance: UInt32
    /// The file's bytes; empty when it was assembled on disk (`spool`).
    public var bytes: [UInt8]
    /// The complete file in a spool file (objects assembled on disk); the sink moves it into place.
    public var spool: SpooledObject? = nil

    /// Bytes of the file.
    public var size: Int { spool?.size ?? bytes.count }
}

/// What the receiver reports as packets come in.
public enum FluteEvent: Sendable, Equatable {
    /// A new FDT instance was accepted (its files are now announced).
    case fdtInstance(tsi: UInt64, id: UInt32, files: [FDTInstance.File])
    /// A file completed (and matched its Content-MD5 when one was given).
    case completed(FluteObject)
    /// A file's object completed but could not be used (`md5_mismatch`, `content_length_mismatch`,
    /// `content_decoding_failed`, `unsupported_content_encoding`); it is tried again from the
    /// carousel's next round.
    case failed(tsi: UInt64, toi: UInt64, contentLocation: String, reason: String)
}

/// One row of the file distribution table.
public struct FluteFileStatus: Sendable, Equatable {
    public enum State: String, Sendable { case announced, receiving, complete, failed }
    public var tsi: UInt64
    public var toi: UInt64
    public var contentLocation: String
    public var size: UInt64?
    public var contentType: String?
    public var fdtInstance: UInt32
    public var state: State
    /// Source symbols held / needed, 0…1.
    public var progress: Double
    public var failure: String?
}

/// Limits of a receiver.
public struct FluteReceiverConfiguration: Sendable, Equatable {
    /// The channel's announced TSI (SDP `a=flute-tsi`); nil accepts up to `maxSessions` TSIs.
    public var tsi: UInt64?
    public var maxSessions: Int
    /// Largest Transfer-Length assembled in memory.
    public var maxObjectBytes: Int
    /// All objects being assembled together may hold at most this many bytes of memory.
    public var maxBufferedBytes: Int
    /// Largest Transfer-Length assembled on disk (with a `SymbolStoreProvider`).
    public var maxDiskObjectBytes: Int
    /// Objects above this Transfer-Length go to disk when the receiver has a store provider.
    public var diskThresholdBytes: Int
    /// Every object (of a channel such as the update channel) goes to disk.
    public var diskOnly: Bool
    /// Memory per on-disk object for the blocks being received, each written whole once complete
    /// (ObjectAssembly): 16 MiB holds 49 blocks of 200 + 40 symbols of 1400 bytes, three times
    /// the 16 blocks a carousel interleaves; less when `maxBufferedBytes` has less left. 0 writes
    /// every symbol as it arrives.
    public var diskBlockBufferBytes: Int

    public init(tsi: UInt64? = nil, maxSessions: Int = 4, maxObjectBytes: Int = 128 << 20, maxBufferedBytes: Int = 256 << 20,
                maxDiskObjectBytes: Int = 1 << 30, diskThresholdBytes: Int = 16 << 20, diskOnly: Bool = false,
                diskBlockBufferBytes: Int = 16 << 20) {
        self.tsi = tsi
        self.maxSessions = maxSessions
        self.maxObjectBytes = maxObjectBytes
        self.maxBufferedBytes = maxBufferedBytes
        self.maxDiskObjectBytes = maxDiskObjectBytes
        self.diskThresholdBytes = diskThresholdBytes
        self.diskOnly = diskOnly
        self.diskBlockBufferBytes = diskBlockBufferBytes
    }
}

/// A file channel's receive side as a sans-I/O state machine (RFC 6726): ALC packets in (with
/// the capture time), FDT instances and completed files out. Symbols may come out of order,
/// repeated, across carousel rounds; a receiver that joined mid-carousel completes in the next
/// round. Malformed input is counted (`FluteStats`) and dropped, never trapped on.
public struct FluteReceiver: Sendable {
    struct FileState: Sendable {
        var entry: FDTInstance.File
        var instance: UInt32
        var state: FluteFileStatus.State = .announced
        var assembly: ObjectAssembly?
        var failure: String?
        /// No new on-disk assembly before this time (Unix ns) after the disk was found full.
        var retryAfter: Int64 = 0
    }

    struct Session: Sendable {
        /// Accepted FDT instances: id → Unix expiry (ns).
        var instances: [UInt32: Int64] = [:]
        var fdtAssemblies: [UInt32: ObjectAssembly] = [:]
        var files: [UInt64: FileState] = [:]
        var newestInstance: UInt32?
    }

    public let configuration: FluteReceiverConfiguration
    private let math: (any ReedSolomonMath)?
    /// Spool files for objects assembled on disk; nil keeps every object in memory.
    let stores: (any SymbolStoreProvider)?
    var sessions: [UInt64: Session] = [:]
    public internal(set) var stats = FluteStats()

    public init(configuration: FluteReceiverConfiguration = FluteReceiverConfiguration(), math: (any ReedSolomonMath)? = nil,
                stores: (any SymbolStoreProvider)? = nil) {
        self.configuration = configuration
        self.math = math
        self.stores = stores
    }

    /// Memory held by the objects being assembled (on-disk objects: only their bookkeeping).
    public var bufferedBytes: Int {
        sessions.values.reduce(0) { total, session in
            total + session.fdtAssemblies.values.reduce(0) { $0 + $1.bufferedBytes }
                + session.files.values.reduce(0) { $0 + ($1.assembly?.bufferedBytes ?? 0) }
        }
    }

    /// One UDP payload of the channel, captured at `nowNanoseconds` (Unix ns).
    public mutating func receive(_ payload: ArraySlice<UInt8>, nowNanoseconds: Int64) -> [FluteEvent] {
        stats.packets += 1
        stats.bytes += payload.count
        var events: [FluteEvent] = []
        if let reason = handle(payload, now: nowNanoseconds, events: &events) { stats.drop(reason) }
        return events
    }

    private mutating func handle(_ payload: ArraySlice<UInt8>, now: Int64, events: inout [FluteEvent]) -> FluteDrop? {
        let header: LCTHeader
        switch LCTHeader.parse(payload) {
        case .failure(let reason): return reason
        case .success(let parsed): header = parsed.header
        }
        if let tsi = configuration.tsi, header.tsi != tsi { return .unknownTSI }
        if sessions[header.tsi] == nil {
            guard sessions.count < configuration.maxSessions else { return .unknownTSI }
            sessions[header.tsi] = Session()
        }
        if header.toi == 0 { return fdtPacket(payload, header: header, now: now, events: &events) }
        // The file's state is taken out while it changes so its buffer is uniquely referenced and
        // updated in place (no copy of the object per packet), and put back on every path.
        guard var file = sessions[header.tsi]?.files.removeValue(forKey: header.toi) else { return .unknownTOI }
        let reason = add(payload, header: header, now: now, to: &file)
        let ended = file.assembly.map { $0.isComplete || reason == .storeFailed } ?? false
        if ended, var assembly = file.assembly {
            file.assembly = nil
            sessions[header.tsi]?.files[header.toi] = file
            if reason == .storeFailed {
                fail(tsi: header.tsi, toi: header.toi, file: file, reason: "store_failed", events: &events)
            } else {
                finish(tsi: header.tsi, toi: header.toi, file: file, assembly: &assembly, events: &events)
            }
        } else {
            sessions[header.tsi]?.files[header.toi] = file
        }
        return reason
    }

    /// One packet into a file's assembly (complete when `file.assembly?.isComplete`).
    private mutating func add(_ payload: ArraySlice<UInt8>, header: LCTHeader, now: Int64, to file: inout FileState) -> FluteDrop? {
        let encodingID = file.entry.fecEncodingID ?? header.codepoint
        let packet: ALCPacket
        switch ALCPacket.parse(payload, encodingID: encodingID) {
        case .failure(let reason): return reason
        case .success(let parsed): packet = parsed
        }
        if packet.symbol.isEmpty { return .noPayload }
        if file.state == .complete { return .objectAlreadyComplete }
        let created = file.assembly == nil
        if created {
            var info = file.entry.objectInfo
            if let fti = header.fti { info = FECObjectInfo.parse(fti: fti, encodingID: encodingID) ?? info }
            guard let info, info.isValid else { return .badFECInfo }
            switch makeAssembly(info, file: &file, now: now) {
            case .failure(let reason): return reason
            case .success(let made): file.assembly = made
            }
        }
        let recovered = file.assembly?.symbolsRecovered ?? 0, failures = file.assembly?.decodeFailures ?? 0
        guard let outcome = file.assembly?.add(block: Int(packet.sourceBlockNumber), esi: Int(packet.encodingSymbolID),
                                               symbol: packet.symbol, math: math) else { return .badFECInfo }
        stats.symbolsRecovered += (file.assembly?.symbolsRecovered ?? 0) - recovered
        stats.fecDecodeFailures += (file.assembly?.decodeFailures ?? 0) - failures
        switch outcome {
        case .failure(.storeFailed):
            return .storeFailed
        case .failure(let reason):
            if created { file.assembly = nil }   // keep no buffer for a packet that added nothing
            return reason
        case .success(.duplicate):
            return .duplicateSymbol
        case .success(.stored), .success(.blockComplete):
            file.state = .receiving
            return nil
        case .success(.objectComplete):
            return nil
        }
    }

    /// A file whose transport object is empty (Transfer-Length 0, or Content-Length 0 without
    /// a Transfer-Length) has no symbols: it completes from the FDT alone.
    mutating func completeIfEmpty(tsi: UInt64, toi: UInt64, events: inout [FluteEvent]) {
        guard let file = sessions[tsi]?.files[toi], file.state != .complete, file.state != .failed,
              (file.entry.transferLength ?? file.entry.contentLength) == 0 else { return }
        finish(tsi: tsi, toi: toi, file: file, bytes: [], events: &events)
    }

    /// A packet of TOI 0: part of an FDT instance (EXT_FDT names it, EXT_FTI sizes it).
    private mutating func fdtPacket(_ payload: ArraySlice<UInt8>, header: LCTHeader, now: Int64, events: inout [FluteEvent]) -> FluteDrop? {
        guard let (_, id) = header.fdt else { return .malformedLCT }
        let tsi = header.tsi
        if let expiry = sessions[tsi]?.instances[id] {
            if expiry > now { return .objectAlreadyComplete }
            sessions[tsi]?.instances[id] = nil   // expired: an instance id may be reused afterwards
        }
        let packet: ALCPacket
        switch ALCPacket.parse(payload, encodingID: header.codepoint) {
        case .failure(let reason): return reason
        case .success(let parsed): packet = parsed
        }
        if packet.symbol.isEmpty { return .noPayload }
        var assembly: ObjectAssembly
        if let existing = sessions[tsi]?.fdtAssemblies.removeValue(forKey: id) {
            assembly = existing   // taken out: updated in place, put back below
        } else {
            guard let fti = header.fti, let info = FECObjectInfo.parse(fti: fti, encodingID: header.codepoint), info.isValid else {
                return header.codepoint == 0 || header.codepoint == 5 ? .badFECInfo : .unsupportedFEC
            }
            guard info.transferLength <= UInt64(XMLSubset.maxBytes) else { return .objectTooLarge }
            guard let made = ObjectAssembly(info: info) else { return .badFECInfo }
            guard bufferedBytes + made.bufferedBytes <= configuration.maxBufferedBytes else { return .bufferFull }
            assembly = made
        }
        let outcome = assembly.add(block: Int(packet.sourceBlockNumber), esi: Int(packet.encodingSymbolID), symbol: packet.symbol, math: math)
        switch outcome {
        case .failure(let reason):
            if assembly.sourceSymbolsHeld > 0 { sessions[tsi]?.fdtAssemblies[id] = assembly }
            return reason
        case .success(.duplicate):
            sessions[tsi]?.fdtAssemblies[id] = assembly
            return .duplicateSymbol
        case .success(.stored), .success(.blockComplete):
            sessions[tsi]?.fdtAssemblies[id] = assembly
            return nil
        case .success(.objectComplete):
            sessions[tsi]?.fdtAssemblies[id] = nil
            accept(fdt: assembly.takeBytes(), tsi: tsi, id: id, now: now, events: &events)
            return nil
        }
    }

    private mutating func accept(fdt bytes: [UInt8], tsi: UInt64, id: UInt32, now: Int64, events: inout [FluteEvent]) {
        let instance: FDTInstance
        switch FDTInstance.parse(bytes) {
        case .failure:
            stats.fdtInvalid += 1
            return
        case .success(let parsed): instance = parsed
        }
        let expiry = (Int64(instance.expires) - FDTInstance.ntpUnixOffset) * 1_000_000_000
        guard expiry > now else {
            stats.drop(.fdtExpired)
            return
        }
        stats.fdtInstances += 1
        sessions[tsi]?.instances[id] = expiry
        sessions[tsi]?.newestInstance = id
        for entry in instance.files {
            if var known = sessions[tsi]?.files[entry.toi], known.entry.contentLocation == entry.contentLocation {
                // The same object listed again (a later instance): keep what was received.
                known.instance = id
                if known.entry != entry, known.state != .complete { known.assembly = nil; known.state = .announced }
                known.entry = entry
                sessions[tsi]?.files[entry.toi] = known
                continue
            }
            // A newer object for the same location supersedes the older one.
            for (toi, old) in sessions[tsi]?.files ?? [:] where old.entry.contentLocation == entry.contentLocation && toi != entry.toi {
                sessions[tsi]?.files[toi] = nil
            }
            sessions[tsi]?.files[entry.toi] = FileState(entry: entry, instance: id)
        }
        events.append(.fdtInstance(tsi: tsi, id: id, files: instance.files))
        for entry in instance.files { completeIfEmpty(tsi: tsi, toi: entry.toi, events: &events) }
    }

    /// Time passes: expired FDT instances go; files only they described and that are not
    /// complete are forgotten (their buffers freed).
    public mutating func tick(nowNanoseconds now: Int64) {
        for tsi in Array(sessions.keys) {
            guard var session = sessions[tsi] else { continue }
            let expired = session.instances.filter { $0.value <= now }.map(\.key)
            guard !expired.isEmpty else { continue }
            for id in expired { session.instances[id] = nil }
            for (toi, file) in session.files where session.instances[file.instance] == nil && file.state != .complete {
                session.files[toi] = nil
            }
            sessions[tsi] = session
        }
    }

    /// The distribution table: every file announced by a live FDT instance (or completed).
    public var table: [FluteFileStatus] {
        var rows: [FluteFileStatus] = []
        for (tsi, session) in sessions {
            for (toi, file) in session.files {
                let progress: Double
                switch file.state {
                case .complete: progress = 1
                default:
                    if let a = file.assembly, a.sourceSymbolCount > 0 { progress = Double(a.sourceSymbolsHeld) / Double(a.sourceSymbolCount) }
                    else { progress = 0 }
                }
                rows.append(FluteFileStatus(tsi: tsi, toi: toi, contentLocation: file.entry.contentLocation,
                                            size: file.entry.contentLength ?? file.entry.transferLength, contentType: file.entry.contentType,
                                            fdtInstance: file.instance, state: file.state, progress: progress, failure: file.failure))
            }
        }
        return rows.sorted { ($0.contentLocation, $0.toi) < ($1.contentLocation, $1.toi) }
    }
}

/// A file channel's counters (docs/files.md "Stats").
public struct FluteStats: Sendable, Equatable {
    public var packets = 0
    public var bytes = 0
    public var objectsCompleted = 0
    public var objectsFailed = 0
    public var md5Mismatches = 0
    public var fdtInstances = 0
    public var fdtInvalid = 0
    public var symbolsRecovered = 0
    public var fecDecodeFailures = 0
    /// Objects whose Content-Encoding stream was corrupt (or decoded beyond the size limit).
    public var contentDecodingFailures = 0
    public private(set) var drops: [FluteDrop: Int] = [:]

    public init() {}

    mutating func drop(_ reason: FluteDrop) { drops[reason, default: 0] += 1 }

    public var malformed: Int { drops.filter { $0.key.isMalformed }.reduce(0) { $0 + $1.value } }

    /// snake_case name → value, sorted by name; drops as `dropped_<reason>`.
    public var fields: [(name: String, value: Int)] {
        var out: [(String, Int)] = [
            ("flute_packets", packets), ("flute_bytes", bytes), ("objects_completed", objectsCompleted),
            ("objects_failed", objectsFailed), ("md5_mismatches", md5Mismatches), ("fdt_instances_received", fdtInstances),
            ("fdt_instances_invalid", fdtInvalid), ("symbols_recovered", symbolsRecovered), ("fec_decode_failures", fecDecodeFailures),
            ("content_decoding_failures", contentDecodingFailures),
            ("flute_malformed_dropped", malformed),
        ]
        for reason in FluteDrop.allCases { out.append(("dropped_\(reason.rawValue)", drops[reason] ?? 0)) }
        return out.sorted { $0.0 < $1.0 }
    }
}
