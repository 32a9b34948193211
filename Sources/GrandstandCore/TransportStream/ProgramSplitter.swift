/// Splits a multi-program transport stream into one single-program stream per program
/// (ISO/IEC 13818-1 §2.4.4): each output carries a PAT listing only its program (§2.4.4.3),
/// its own PMT sections (§2.4.4.8, re-packetised, so programs that share a PMT PID are
/// separated too) and the packets of its elementary streams and PCR PID; the SDT, NIT, EIT and
/// other programs' PIDs are left out. Programs are named from the DVB SDT (ETSI EN 300 468
/// §5.2.3). Sans-I/O: arrival times are passed in.
///
/// The split is decided once the stream has "settled": every PAT program has an SDT entry, or
/// `serviceNameWaitNanoseconds` have passed since the first PAT (an SDT is sent at least every
/// 2 s, ETSI TR 101 211 §4.4.1), checked after each table and at each call, so the split starts
/// at the same packet however the stream is batched. `.auto` splits when the PAT then lists several programs, and
/// stays split while the stream lasts (ids do not flap); until then `split` returns nil and the
/// stream passes whole.
public struct ProgramSplitter: Sendable {
    /// One program that is (or would be) a channel of its own.
    public struct Program: Sendable, Equatable {
        public var number: UInt16
        /// The SDT's service_name, when one was received.
        public var name: String?
        public var provider: String?
    }

    /// What the splitter counted, for the parent channel's stats (docs/ingest.md).
    public struct Counters: Sendable, Equatable {
        /// PSI sections (PAT, PMT, SDT) with a bad CRC_32 or impossible length: dropped.
        public var sectionErrors = 0
        /// Programs beyond `maximumPrograms`: not split out.
        public var programsOverLimit = 0
        /// Packets of PIDs no output carries (SDT, NIT, EIT, null, unpicked programs).
        public var packetsLeftOut = 0
    }

    /// Outputs are tracked in one 64-bit mask per PID.
    public static let maximumPrograms = 64
    public static let serviceNameWaitNanoseconds: Int64 = 2_500_000_000
    static let patPID: UInt16 = 0

    /// One program being split out.
    struct Output: Sendable {
        var number: UInt16
        var pmtPID: UInt16
        var pmt: ProgramMapTable? = nil
        var patContinuity: UInt8 = 0
        var pmtContinuity: UInt8 = 0
        var bytes: [UInt8] = []
    }

    /// What each PID means to the splitter, looked up per packet.
    enum Role: UInt8, Sendable { case none, pat, sdt, pmt }

    public let selection: ProgramSelection
    /// The programs split out (channels), by program number; empty while the stream passes whole.
    public private(set) var programs: [Program] = []
    /// Bumped whenever `programs` changes (a program added, removed or renamed).
    public private(set) var revision = 0
    public private(set) var isSplit = false
    public private(set) var counters = Counters()
    /// `programs` changed since the receiver last acknowledged it (`acknowledge()`).
    public private(set) var changed = false

    private var pat: ProgramAssociationTable? = nil
    private var firstPATAt: Int64? = nil
    /// When the split decision is next due by time alone (the SDT wait ending); nil while only a
    /// new table can change it. Keeps the per-call cost of an unsplit stream to one comparison.
    private var settleAt: Int64? = nil
    private var services: [UInt16: (name: String?, provider: String?)] = [:]
    private var assemblers: [UInt16: PSISectionAssembler] = [:]
    private var roles = [Role](repeating: .none, count: 8192)
    /// Bit n set: output slot n carries this PID's packets as they are.
    private var routes = [UInt64](repeating: 0, count: 8192)
    private var outputs: [Output?] = []
    private var slots: [UInt16: Int] = [:]

    public init(selection: ProgramSelection) {
        self.selection = selection
        roles[Int(Self.patPID)] = .pat
        roles[Int(ServiceDescriptionTable.pid)] = .sdt
    }

    /// Routes whole 188-byte packets (already checked by the receiver). Nil while the stream is
    /// not split: the caller passes it on whole. Otherwise each split program's packets, in order.
    /// While `wantsEveryBatch` is false, a caller that sees every PID may skip batches without a
    /// PAT or SDT packet (the receive path does: an unsplit channel then costs two compares per
    /// packet).
    public mutating func split(_ packets: ArraySlice<UInt8>, at time: Int64) -> [(program: UInt16, packets: [UInt8])]? {
        if let due = settleAt, time >= due { settle(at: time) }
        let size = TSPacket.size
        var offset = packets.startIndex
        while offset + size <= packets.endIndex {
            if !isSplit {
                // The stream passes whole: only its tables are read, found by a scan that
                // touches two bytes per packet (an unsplit channel's whole cost here).
                guard let table = nextTable(in: packets, from: offset) else { break }
                let pid = Int(packets[table + 1] & 0x1F) << 8 | Int(packets[table + 2])
                sections(of: UInt16(pid), role: roles[pid], packet: packets[table..<(table + size)], at: time)
                offset = table + size
                continue
            }
            let pid = Int(packets[offset + 1] & 0x1F) << 8 | Int(packets[offset + 2])
            let packet = packets[offset..<(offset + size)]
            offset += size
            // The receiver passes only checked packets; anything else would misalign an output.
            guard packet.first == TSPacket.syncByte else { counters.packetsLeftOut += 1; continue }
            switch roles[pid] {
            case .none:
                let mask = routes[pid]
                guard mask != 0 else { counters.packetsLeftOut += 1; continue }
                var bits = mask
                while bits != 0 {
                    let slot = bits.trailingZeroBitCount
                    bits &= bits - 1
                    outputs[slot]?.bytes.append(contentsOf: packet)
                }
            case .sdt:
                counters.packetsLeftOut += 1
                sections(of: UInt16(pid), role: .sdt, packet: packet, at: time)
            case .pat, .pmt:
                sections(of: UInt16(pid), role: roles[pid], packet: packet, at: time)
            }
        }
        guard isSplit else { return nil }
        var result: [(program: UInt16, packets: [UInt8])] = []
        for slot in outputs.indices {
            guard let output = outputs[slot], !output.bytes.isEmpty else { continue }
            result.append((output.number, output.bytes))
            outputs[slot]?.bytes = []
        }
        return result
    }

    /// The index of the first packet at or after `offset` that carries a table the splitter reads.
    private func nextTable(in packets: ArraySlice<UInt8>, from offset: Int) -> Int? {
        let size = TSPacket.size
        return roles.withUnsafeBufferPointer { roles in
            packets.withUnsafeBufferPointer { bytes -> Int? in
                var index = offset - packets.startIndex
                while index + size <= bytes.count {
                    let pid = Int(bytes[index + 1] & 0x1F) << 8 | Int(bytes[index + 2])
                    if bytes[index] == TSPacket.syncByte, roles[pid] != .none { return packets.startIndex + index }
                    index += size
                }
                return nil
            }
        }
    }

    /// Time passes without packets: the SDT wait can still end.
    public mutating func tick(at time: Int64) {
        if let due = settleAt, time >= due { settle(at: time) }
    }

    /// Every batch matters: the stream is split, or the split is due by time.
    public var wantsEveryBatch: Bool { isSplit || settleAt != nil }

    /// The receiver has listed the current `programs`.
    public mutating func acknowledge() { changed = false }

    /// Input was lost: sections in progress are dropped (their CRC would fail anyway).
    public mutating func markGap() {
        for pid in Array(assemblers.keys) { assemblers[pid]?.reset() }
    }

    // MARK: PSI

    private mutating func sections(of pid: UInt16, role: Role, packet: ArraySlice<UInt8>, at time: Int64) {
        guard case .success(let parsed) = TSPacket.parse(packet), parsed.hasPayload else { return }
        var found: [PSISectionAssembler.Output] = []
        assemblers[pid, default: PSISectionAssembler()].push(payload: parsed.payload, unitStart: parsed.payloadUnitStart, into: &found)
        for item in found {
            guard case .section(let section) = item else { counters.sectionErrors += 1; continue }
            switch role {
            case .pat:
                guard let table = ProgramAssociationTable.parse(section: section) else { continue }
                if firstPATAt == nil { firstPATAt = time }
                apply(table)
                settle(at: time)
                for slot in outputs.indices { emitPAT(slot, transportStreamID: table.transportStreamID, version: table.version) }
            case .sdt:
                guard let table = ServiceDescriptionTable.parse(section: section) else { continue }
                var renamed = false
                for service in table.services {
                    if let old = services[service.serviceID], old.name == service.name, old.provider == service.provider { continue }
                    services[service.serviceID] = (service.name, service.provider)
                    renamed = true
                }
                if renamed, isSplit { listPrograms() }
                settle(at: time)
            case .pmt:
                guard let table = ProgramMapTable.parse(section: section), let slot = slots[table.programNumber],
                      outputs[slot]?.pmtPID == pid else { continue }
                apply(table, slot: slot)
                emit(section: section, pid: pid, slot: slot, pmt: true)
            case .none:
                break
            }
        }
    }

    /// A PAT: PMT PIDs are watched, and once split, outputs follow the program list.
    private mutating func apply(_ table: ProgramAssociationTable) {
        guard table != pat else { return }
        pat = table
        for pid in roles.indices where roles[pid] == .pmt { roles[pid] = .none }
        for pid in Set(table.programs.values) where roles[Int(pid)] == .none { roles[Int(pid)] = .pmt }
        if isSplit { reconcile() }
    }

    /// Decides the split once the stream has settled (see the type's comment).
    private mutating func settle(at time: Int64) {
        settleAt = nil
        guard !isSplit, selection != .whole, let pat, let first = firstPATAt else { return }
        if case .auto = selection, pat.programs.count < 2 { return }   // until a PAT lists more
        let named = pat.programs.keys.allSatisfy { !selection.admits($0) || services[$0] != nil }
        guard named || time - first >= Self.serviceNameWaitNanoseconds else {
            settleAt = first + Self.serviceNameWaitNanoseconds
            return
        }
        isSplit = true
        reconcile()
    }

    /// Opens outputs for new admitted programs, closes those the PAT no longer lists, and
    /// re-routes PMT PIDs that moved.
    private mutating func reconcile() {
        let wanted = (pat?.programs ?? [:]).filter { selection.admits($0.key) }
        for (number, slot) in slots where wanted[number] != outputs[slot]?.pmtPID {
            close(slot)
            slots[number] = nil
        }
        for number in wanted.keys.sorted() where slots[number] == nil {
            guard let pmtPID = wanted[number] else { continue }
            guard let slot = freeSlot() else { counters.programsOverLimit += 1; continue }
            outputs[slot] = Output(number: number, pmtPID: pmtPID)
            slots[number] = slot
        }
        listPrograms()
    }

    private mutating func freeSlot() -> Int? {
        if let free = outputs.firstIndex(where: { $0 == nil }) { return free }
        guard outputs.count < Self.maximumPrograms else { return nil }
        outputs.append(nil)
        return outputs.count - 1
    }

    private mutating func close(_ slot: Int) {
        unroute(slot)
        outputs[slot] = nil
    }

    private mutating func unroute(_ slot: Int) {
        let bit = UInt64(1) << UInt64(slot)
        for pid in routes.indices where routes[pid] & bit != 0 { routes[pid] &= ~bit }
    }

    private mutating func listPrograms() {
        let listed = slots.keys.sorted().map { Program(number: $0, name: services[$0]?.name ?? nil, provider: services[$0]?.provider ?? nil) }
        guard listed != programs else { return }
        programs = listed
        revision += 1
        changed = true
    }

    /// A PMT for an output: its elementary stream PIDs and PCR PID are routed to it.
    private mutating func apply(_ table: ProgramMapTable, slot: Int) {
        guard outputs[slot]?.pmt != table else { return }
        unroute(slot)
        let bit = UInt64(1) << UInt64(slot)
        var pids = table.streams.map(\.pid)
        if table.pcrPID != TSPacket.nullPID { pids.append(table.pcrPID) }
        for pid in pids where roles[Int(pid)] == .none { routes[Int(pid)] |= bit }
        outputs[slot]?.pmt = table
    }

    // MARK: Writing sections

    /// The output's single-program PAT (§2.4.4.3), sent each time the source sends its PAT.
    private mutating func emitPAT(_ slot: Int, transportStreamID: UInt16, version: UInt8) {
        guard let output = outputs[slot] else { return }
        var section: [UInt8] = [0x00, 0xB0, 13, UInt8(transportStreamID >> 8), UInt8(transportStreamID & 0xFF),
                                0xC1 | (version & 0x1F) << 1, 0, 0,
                                UInt8(output.number >> 8), UInt8(output.number & 0xFF),
                                0xE0 | UInt8(output.pmtPID >> 8), UInt8(output.pmtPID & 0xFF)]
        let crc = CRC32MPEG2.checksum(section)
        section += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        emit(section: section, pid: Self.patPID, slot: slot, pmt: false)
    }

    /// Packetises one whole section onto `pid` of an output: pointer_field 0, 0xFF stuffing.
    private mutating func emit(section: [UInt8], pid: UInt16, slot: Int, pmt: Bool) {
        guard var output = outputs[slot] else { return }
        outputs[slot] = nil   // `output` holds the only reference to its bytes while they grow
        defer { outputs[slot] = output }
        var offset = 0
        while offset < section.count {
            let first = offset == 0
            let continuity = pmt ? output.pmtContinuity : output.patContinuity
            if pmt { output.pmtContinuity = (continuity + 1) & 0x0F } else { output.patContinuity = (continuity + 1) & 0x0F }
            var packet: [UInt8] = [TSPacket.syncByte, (first ? 0x40 : 0) | UInt8(pid >> 8 & 0x1F), UInt8(pid & 0xFF), 0x10 | continuity]
            if first { packet.append(0) }
            let take = min(TSPacket.size - packet.count, section.count - offset)
            packet += section[offset..<(offset + take)]
            offset += take
            packet += [UInt8](repeating: 0xFF, count: TSPacket.size - packet.count)
            output.bytes += packet
        }
    }
}
