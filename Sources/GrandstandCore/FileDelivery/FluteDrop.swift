/// Why a file-channel packet or object was dropped; counted per channel under the raw value
/// (docs/files.md "Stats"). Never a trap: every malformed input ends here.
public enum FluteDrop: String, Error, Sendable, Equatable, CaseIterable {
    /// LCT header (RFC 5651) broken: short, version ≠ 1, HDR_LEN too small or past the packet,
    /// a header extension whose length runs past HDR_LEN, a zero-length TSI or TOI.
    case malformedLCT = "malformed_lct"
    /// ALC (RFC 5775): FEC Payload ID missing, empty or oversized encoding symbol.
    case malformedALC = "malformed_alc"
    /// A TSI other than the one the channel announces.
    case unknownTSI = "unknown_tsi"
    /// A TOI no FDT instance describes (yet): a receiver that joined mid-carousel gets it next round.
    case unknownTOI = "unknown_toi"
    /// TOI wider than 64 bits with non-zero high bits.
    case toiTooLarge = "toi_too_large"
    /// FEC Encoding ID other than 0 (Compact No-Code) and 5 (Reed-Solomon GF(2^8)).
    case unsupportedFEC = "unsupported_fec"
    /// FEC Object Transmission Information missing or inconsistent (zero symbol length, …).
    case badFECInfo = "bad_fec_info"
    /// Source block number or encoding symbol id outside the object's partitioning.
    case symbolOutOfRange = "symbol_out_of_range"
    /// Symbol length other than the announced one (the object's last source symbol may be shorter).
    case badSymbolLength = "bad_symbol_length"
    /// The object's Transfer-Length exceeds the receiver's limit.
    case objectTooLarge = "object_too_large"
    /// Buffering the object would exceed the receiver's memory budget.
    case bufferFull = "buffer_full"
    /// An on-disk object whose Transfer-Length does not fit the free space minus the floor.
    case noDiskSpace = "no_disk_space"
    /// The object's symbol store failed (a spool file write or read, e.g. ENOSPC): the object
    /// fails and is tried again from the carousel's next round.
    case storeFailed = "store_failed"
    /// FDT packet of an instance that already expired.
    case fdtExpired = "fdt_expired"
    /// A symbol of an object already complete (the carousel repeating it).
    case objectAlreadyComplete = "object_already_complete"
    /// A symbol already held.
    case duplicateSymbol = "duplicate_symbol"
    /// A packet with the close-session flag or without payload (nothing to assemble).
    case noPayload = "no_payload"

    /// Broken bytes (as opposed to traffic that is merely not needed).
    public var isMalformed: Bool {
        switch self {
        case .malformedLCT, .malformedALC, .toiTooLarge, .badFECInfo, .symbolOutOfRange, .badSymbolLength: return true
        default: return false
        }
    }
}
