/// An incremental MPEG-TS demultiplexer for one program (ISO/IEC 13818-1 §2.4): PAT and PMT from
/// CRC-checked sections (version changes reported), PES packets reassembled per elementary stream
/// with PTS/DTS, PCRs, continuity errors. Feed bytes in pieces of any size with capture times;
/// events come out in stream order and do not depend on how the input was split.
/// The lowest-numbered program of the PAT is demuxed (one program per channel).
public struct TSDemuxer: Sendable {
    /// Which elementary streams are reassembled into PES packets.
    public enum PESSelection: Sendable, Equatable {
        case all
        /// Only `ProgramMapTable.timingStream` (what the segmenter needs; saves copying audio).
        case timingStream
    }

    public var selection: PESSelection
    public private(set) var pat: ProgramAssociationTable?
    public private(set) var pmt: ProgramMapTable?
    /// The raw TS packets that carried the current PAT and PMT sections (repeated at segment starts).
    public private(set) var patPackets: [[UInt8]] = []
    public private(set) var pmtPackets: [[UInt8]] = []
    public private(set) var statistics = TSDemuxStatistics()

    private var aligner = TSPacketAligner()
    private var continuity = ContinuityTracker()
    private var sections: [UInt16: PSISectionAssembler] = [:]
    private var sectionPackets: [UInt16: [[UInt8]]] = [:]
    private var assemblies: [UInt16: PESAssembly] = [:]
    /// PIDs whose PES packets are reassembled, with their stream types.
    private var pesPIDs: [UInt16: StreamType] = [:]

    struct PESAssembly: Sendable {
        var streamType: StreamType
        var bytes: [UInt8]
        var randomAccess: Bool
        var timestampNanoseconds: Int64
        /// PES_packet_length + 6 once the header is known, 0 for unbounded.
        var expectedTotal: Int
    }

    public init(selection: PESSelection = .all) {
        self.selection = selection
    }

    /// Bytes skipped to regain sync.
    public var droppedBytes: Int { aligner.droppedBytes }

    /// The PMT PID of the program being demuxed.
    public var pmtPID: UInt16? { pat?.firstProgram?.pmtPID }

    /// Whether `pid` belongs to the program (PAT, PMT, PCR or an elementary stream).
    public func isProgramPID(_ pid: UInt16) -> Bool {
        if pid == 0 || pid == pmtPID { return true }
        guard let pmt else { return false }
        return pid == pmt.pcrPID || pmt.streams.contains { $0.pid == pid }
    }

    /// Feeds bytes (any split) captured at `timestampNanoseconds`.
    public mutating func feed(_ bytes: ArraySlice<UInt8>, timestampNanoseconds: Int64) -> [TSDemuxEvent] {
        var events: [TSDemuxEvent] = []
        for packet in aligner.packets(bytes) {
            _ = process(packet: packet, timestampNanoseconds: timestampNanoseconds, into: &events)
        }
        return events
    }

    /// Handles one whole 188-byte packet. Returns the parsed packet, or nil when it was dropped
    /// (malformed, or a duplicate per §2.4.3.3) and must not be passed on.
    public mutating func process(packet bytes: ArraySlice<UInt8>, timestampNanoseconds: Int64,
                                 into events: inout [TSDemuxEvent]) -> TSPacket? {
        statistics.packets += 1
        let packet: TSPacket
        switch TSPacket.parse(bytes) {
        case .success(let p): packet = p
        case .failure:
            statistics.malformedPackets += 1
            return nil
        }
        let pid = packet.pid
        guard isProgramPID(pid) else {
            statistics.otherPIDPackets += 1
            return packet
        }
        switch continuity.record(packet) {
        case .duplicate:
            statistics.duplicatePackets += 1
            return nil
        case .discontinuity(let expected, let received):
            statistics.continuityErrors += 1
            events.append(.continuityError(pid: pid, expected: expected, received: received))
            discardPartial(pid)
        case .ok, .ignored:
            break
        }
        if packet.discontinuityIndicator { events.append(.discontinuityIndicator(pid: pid)) }
        if pid == pmt?.pcrPID, let pcr = ProgramClockReference.read(bytes) {
            statistics.pcrs += 1
            events.append(.pcr(pid: pid, value: pcr, timestampNanoseconds: timestampNanoseconds))
        }
        guard packet.hasPayload, !packet.payload.isEmpty else { return packet }
        if pid == 0 || pid == pmtPID {
            handleSection(pid: pid, packet: packet, raw: bytes, into: &events)
        } else if let type = pesPIDs[pid] {
            handlePES(pid: pid, type: type, packet: packet, timestampNanoseconds: timestampNanoseconds, into: &events)
        }
        return packet
    }

    /// Input was lost (an unrecovered RTP gap): partial PES packets and sections are dropped, the
    /// continuity state restarts, and a partially fed packet is discarded.
    public mutating func markGap() {
        aligner.reset()
        for pid in Array(assemblies.keys) { discardPartial(pid) }
        for pid in Array(sections.keys) { sections[pid]?.reset() }
        continuity = ContinuityTracker()
    }

    /// End of input: PES packets in progress are delivered (an unbounded video PES ends here).
    public mutating func flush() -> [TSDemuxEvent] {
        var events: [TSDemuxEvent] = []
        for pid in assemblies.keys.sorted() { finishPES(pid, into: &events) }
        return events
    }

    // MARK: PSI

    private mutating func handleSection(pid: UInt16, packet: TSPacket, raw: ArraySlice<UInt8>,
                                        into events: inout [TSDemuxEvent]) {
        if packet.payloadUnitStart { sectionPackets[pid] = [Array(raw)] } else { sectionPackets[pid, default: []].append(Array(raw)) }
        var outputs: [PSISectionAssembler.Output] = []
        sections[pid, default: PSISectionAssembler()].push(payload: packet.payload, unitStart: packet.payloadUnitStart, into: &outputs)
        for output in outputs {
            switch output {
            case .crcMismatch, .malformed:
                statistics.sectionErrors += 1
                events.append(.sectionError(pid: pid))
            case .section(let section):
                if pid == 0, let table = ProgramAssociationTable.parse(section: section) {
                    patPackets = sectionPackets[pid] ?? []
                    apply(table, into: &events)
                } else if pid == pmtPID, let table = ProgramMapTable.parse(section: section),
                          table.programNumber == pat?.firstProgram?.number {
                    pmtPackets = sectionPackets[pid] ?? []
                    apply(table, into: &events)
                }
            }
        }
    }

    private mutating func apply(_ table: ProgramAssociationTable, into events: inout [TSDemuxEvent]) {
        guard table != pat else { return }
        let oldPMTPID = pmtPID
        pat = table
        events.append(.programAssociation(table))
        if pmtPID != oldPMTPID {
            pmt = nil
            pmtPackets = []
            updatePESPIDs()
        }
    }

    private mutating func apply(_ table: ProgramMapTable, into events: inout [TSDemuxEvent]) {
        guard table != pmt else { return }
        pmt = table
        events.append(.programMap(table))
        updatePESPIDs()
    }

    private mutating func updatePESPIDs() {
        var pids: [UInt16: StreamType] = [:]
        if let pmt {
            switch selection {
            case .all:
                for s in pmt.streams where s.streamType.carriesPES { pids[s.pid] = s.streamType }
            case .timingStream:
                if let s = pmt.timingStream { pids[s.pid] = s.streamType }
            }
        }
        for pid in Array(assemblies.keys) where pids[pid] != assemblies[pid]?.streamType { discardPartial(pid) }
        pesPIDs = pids
    }

    // MARK: PES

    private mutating func handlePES(pid: UInt16, type: StreamType, packet: TSPacket, timestampNanoseconds: Int64,
                                    into events: inout [TSDemuxEvent]) {
        if packet.payloadUnitStart {
            finishPES(pid, into: &events)
            var assembly = PESAssembly(streamType: type, bytes: [], randomAccess: packet.randomAccessIndicator,
                                       timestampNanoseconds: timestampNanoseconds, expectedTotal: 0)
            assembly.bytes.reserveCapacity(4096)
            assembly.bytes.append(contentsOf: packet.payload)
            var header: PESHeader?
            if case .header(let h) = PESHeader.parse(packet.payload) {
                header = h
                assembly.expectedTotal = h.packetLength == 0 ? 0 : h.packetLength + 6
            }
            assemblies[pid] = assembly
            events.append(.pesStarted(pid: pid, header: header, timestampNanoseconds: timestampNanoseconds))
        } else {
            guard assemblies[pid] != nil else { return }  // the start was lost: nothing to add to
            assemblies[pid]?.bytes.append(contentsOf: packet.payload)   // in place, no copy of the PES so far
            if let a = assemblies[pid], a.expectedTotal == 0, case .header(let h) = PESHeader.parse(a.bytes[...]),
               h.packetLength != 0 {
                assemblies[pid]?.expectedTotal = h.packetLength + 6
            }
        }
        if let a = assemblies[pid], a.expectedTotal > 0, a.bytes.count >= a.expectedTotal {
            finishPES(pid, into: &events)
        }
    }

    private mutating func finishPES(_ pid: UInt16, into events: inout [TSDemuxEvent]) {
        guard let a = assemblies.removeValue(forKey: pid) else { return }
        guard case .header(let header) = PESHeader.parse(a.bytes[...]) else {
            statistics.pesDiscarded += 1
            return
        }
        let end = a.expectedTotal > 0 ? min(a.expectedTotal, a.bytes.count) : a.bytes.count
        guard header.headerLength <= end else {
            statistics.pesDiscarded += 1
            return
        }
        statistics.pesPackets += 1
        events.append(.pes(PESPacket(pid: pid, streamType: a.streamType, header: header,
                                     payload: Array(a.bytes[header.headerLength..<end]), randomAccess: a.randomAccess,
                                     timestampNanoseconds: a.timestampNanoseconds,
                                     complete: a.expectedTotal == 0 || a.bytes.count >= a.expectedTotal)))
    }

    private mutating func discardPartial(_ pid: UInt16) {
        if assemblies.removeValue(forKey: pid) != nil { statistics.pesDiscarded += 1 }
        sections[pid]?.reset()
    }
}
