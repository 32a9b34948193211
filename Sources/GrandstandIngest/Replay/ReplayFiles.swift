import GrandstandCore

extension ReplayOutput {
    /// A file arrival for `events.jsonl`: `{"event":"file","id":…,"file":{…},"time":…,"timestampNanoseconds":…}`.
    static func fileLine(_ note: [UInt8], id: String, time: Int64) -> String {
        let detail = String(decoding: note, as: UTF8.self)
        return "{\"event\":\"file\",\"file\":\(detail),\"id\":\(JSONValue.quote(id)),\"time\":"
            + JSONValue.quote(TextEncoding.rfc3339(nanoseconds: time)) + ",\"timestampNanoseconds\":\(time)}\n"
    }
}
