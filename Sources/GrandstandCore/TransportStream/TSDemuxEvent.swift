/// What the demuxer found in the packets it was fed, in stream order.
public enum TSDemuxEvent: Sendable, Equatable {
    /// A new or changed PAT (a repeat of the same version is not reported).
    case programAssociation(ProgramAssociationTable)
    /// A new or changed PMT of the program being demuxed.
    case programMap(ProgramMapTable)
    /// A PES packet began on `pid` (the header, when the first packet held all of it).
    case pesStarted(pid: UInt16, header: PESHeader?, timestampNanoseconds: Int64)
    /// A PES packet ended: on its declared length, at the next payload_unit_start, or at flush.
    case pes(PESPacket)
    /// A program clock reference on the PCR PID, in 27 MHz ticks.
    case pcr(pid: UInt16, value: Int64, timestampNanoseconds: Int64)
    /// continuity_counter broke on a program PID (§2.4.3.3): packets were lost.
    case continuityError(pid: UInt16, expected: UInt8, received: UInt8)
    /// The adaptation field announced a discontinuity (§2.4.3.5): a new time base may follow.
    case discontinuityIndicator(pid: UInt16)
    /// A PSI section failed its CRC_32 or was malformed; it was ignored.
    case sectionError(pid: UInt16)
}

/// Counters of the demuxer (stats keys in snake_case).
public struct TSDemuxStatistics: Sendable, Equatable {
    public var packets = 0
    /// Packets that failed TSPacket.parse (lost sync, transport_error_indicator, bad lengths).
    public var malformedPackets = 0
    public var duplicatePackets = 0
    /// `num_ts_discontinuities`: continuity_counter errors on program PIDs.
    public var continuityErrors = 0
    public var sectionErrors = 0
    public var pesPackets = 0
    /// PES packets dropped unfinished (packet loss or a gap inside them).
    public var pesDiscarded = 0
    public var pcrs = 0
    /// Packets of PIDs outside the program (SI tables, other programs, null packets).
    public var otherPIDPackets = 0

    public init() {}
}
