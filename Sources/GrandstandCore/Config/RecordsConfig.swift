/// The `records` section (docs/records.md "Automatic recording"): channels recorded as soon as
/// they appear. `{"records":{"autoRecord":["bowl-cam"]}}` records channel `bowl-cam` every
/// time it is announced (again), under `bowl-cam-YYYYMMDD-HHMMSS`.
extension GatewayConfig {
    public struct Records: Sendable, Equatable {
        /// Channel ids (as listed by `grandstand channels`) recorded when they appear.
        public var autoRecord: [String] = []

        public init(autoRecord: [String] = []) { self.autoRecord = autoRecord }
    }

    static func decodeRecords(_ root: JSONObjectView, _ reader: inout JSONReader) -> Records {
        var records = Records()
        guard let object = reader.object(root["records"], at: root.path("records"), known: ["autoRecord"]) else { return records }
        for (path, value) in reader.array(object["autoRecord"], at: object.path("autoRecord")) ?? [] {
            guard let id = reader.string(value, at: path) else { continue }
            if ChannelSlug.make(id) != id || id.utf8.count > ChannelSlug.maximumLength {
                reader.report(path, "\"\(id)\" is not a channel id (lowercase letters, digits and '-', as `grandstand channels` lists them)")
            } else if records.autoRecord.contains(id) {
                reader.report(path, "\"\(id)\" is listed twice")
            } else {
                records.autoRecord.append(id)
            }
        }
        return records
    }
}
