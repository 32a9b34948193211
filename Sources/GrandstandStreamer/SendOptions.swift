/// What `grandstand send` was asked to do (its options, docs/streamer.md), as `SendPlan` reads
/// them; the command's parsed options conform, tests may pass their own.
public protocol SendOptions {
    /// Outgoing interface and source address (the SAP origin); SAP group and interval.
    var interface: String? { get }
    var source: String? { get }
    var sapGroup: String { get }
    var sapInterval: Double { get }
    var compress: Bool { get }
    var ttl: Int { get }
    var noLoopback: Bool { get }
    var license: String { get }
    var noLicense: Bool { get }
    /// Channels: `NAME=FILE@GROUP:PORT` videos, `NAME@GROUP:PORT[=FILE]` data, a JSON channel file.
    var video: [String] { get }
    var data: [String] { get }
    var config: String? { get }
    var fec: String? { get }
    var dataInterval: Double { get }
    var dataUDP: Bool { get }
    var fallbackBitrate: Int { get }
    /// FLUTE carousels (`--files`) and their encoding.
    var files: [String] { get }
    var fileSymbolSize: Int { get }
    var fileBlock: Int { get }
    var fileRepair: Int { get }
    var fileInterleave: Int { get }
    var fileInterval: Double { get }
    var fileTSI: UInt64 { get }
    var fileEncoding: String { get }
    /// Passes, loss on purpose and timing.
    var loop: Bool { get }
    var count: Int? { get }
    var dropRate: Double? { get }
    var dropPattern: String? { get }
    var dropRepair: String? { get }
    var seed: UInt64 { get }
    var announceOnly: Bool { get }
    var leadIn: Double? { get }
}
