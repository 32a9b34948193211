/// The `files` section: how file channels (FLUTE) assemble objects (docs/files.md "Large
/// files"). Objects above `diskThresholdBytes`, and every object of the update channel
/// (`update.multicast.channel`), are assembled in a spool file up to `maxDiskObjectBytes`; the
/// rest in memory up to `maxObjectBytes`. An on-disk object must leave `diskFloorBytes` free.
extension GatewayConfig {
    public struct Files: Sendable, Equatable {
        public var maxObjectBytes = 128 << 20
        public var maxBufferedBytes = 256 << 20
        public var maxDiskObjectBytes = 1 << 30
        public var diskThresholdBytes = 16 << 20
        public var diskFloorBytes = 64 << 20

        public init() {}
    }

    static func decodeFiles(_ root: JSONObjectView, _ reader: inout JSONReader) -> Files {
        var files = Files()
        guard let object = reader.object(root["files"], at: root.path("files"),
                                         known: ["maxObjectBytes", "maxBufferedBytes", "maxDiskObjectBytes", "diskThresholdBytes", "diskFloorBytes"]) else {
            return files
        }
        let limit = 1 << 48   // FLUTE's Transfer-Length field (RFC 6726 §3.4.2, 48-bit EXT_FTI)
        func bytes(_ key: String, _ range: ClosedRange<Int>, _ value: inout Int) {
            value = reader.integer(object[key], at: object.path(key), in: range) ?? value
        }
        bytes("maxObjectBytes", 1...(1 << 31), &files.maxObjectBytes)
        bytes("maxBufferedBytes", 1...(1 << 32), &files.maxBufferedBytes)
        bytes("maxDiskObjectBytes", 1...limit, &files.maxDiskObjectBytes)
        bytes("diskThresholdBytes", 0...limit, &files.diskThresholdBytes)
        bytes("diskFloorBytes", 0...limit, &files.diskFloorBytes)
        if files.maxObjectBytes > files.maxBufferedBytes {
            reader.report(object.path("maxObjectBytes"), "\(files.maxObjectBytes) is larger than maxBufferedBytes (\(files.maxBufferedBytes))")
        }
        return files
    }

    /// The receivers' limits for these settings.
    public var fluteReceiver: FluteReceiverConfiguration {
        FluteReceiverConfiguration(maxObjectBytes: files.maxObjectBytes, maxBufferedBytes: files.maxBufferedBytes,
                                   maxDiskObjectBytes: files.maxDiskObjectBytes, diskThresholdBytes: files.diskThresholdBytes)
    }
}
