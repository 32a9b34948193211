/// The on-disk index: an append-only journal of records, each framed and CRC-32C checked, folded
/// into the item table by a pure replay that stops at the first torn or corrupt record
/// (docs/cache.md "On-disk format"). Compaction rewrites it as one `put` per live item.
///
/// File: `GSCJ` + version (u32 LE = 1), then records:
/// `0xC7, kind (1 put, 2 remove), length (u32 LE), payload (JSON), CRC-32C (u32 LE) of kind…payload`.
public enum CacheJournal {
    public static let header: [UInt8] = Array("GSCJ".utf8) + [1, 0, 0, 0]
    static let marker: UInt8 = 0xC7
    /// Largest payload a record may claim: a length beyond it is damage, not a record.
    static let maxPayload = 16 << 20

    public enum Record: Sendable, Equatable {
        case put(CacheItem)
        case remove(String)
    }

    /// The table a journal describes, and where its valid prefix ends (the adapter truncates there).
    public struct Replay: Sendable, Equatable {
        public var items: [String: CacheItem] = [:]
        public var records = 0
        /// Bytes of the valid prefix (header included); equal to the input length when nothing was torn.
        public var validLength = 0
        /// Whether a header was present (false: a new or torn-at-birth file, rewrite it).
        public var hadHeader = false

        public init(items: [String: CacheItem] = [:]) {
            self.items = items
        }
    }

    public static func encode(_ record: Record) -> [UInt8] {
        let kind: UInt8, payload: [UInt8]
        switch record {
        case .put(let item): kind = 1; payload = Array(item.journalJSON.encoded.utf8)
        case .remove(let id): kind = 2; payload = Array(JSONValue.object([("id", .string(id))]).encoded.utf8)
        }
        var body: [UInt8] = [kind]
        appendLE(UInt32(payload.count), to: &body)
        body.append(contentsOf: payload)
        var out: [UInt8] = [marker]
        out.append(contentsOf: body)
        appendLE(CRC32C.checksum(body), to: &out)
        return out
    }

    /// A compacted journal: the header and one `put` per item (ordered by id, so it is stable).
    public static func snapshot(_ items: [String: CacheItem]) -> [UInt8] {
        var out = header
        for id in items.keys.sorted() { if let item = items[id] { out.append(contentsOf: encode(.put(item))) } }
        return out
    }

    /// Folds every intact record, in order; stops at the first incomplete or corrupt one.
    public static func replay(_ bytes: [UInt8]) -> Replay {
        var replay = Replay()
        guard bytes.count >= header.count, Array(bytes[0..<header.count]) == header else { return replay }
        replay.hadHeader = true
        var offset = header.count
        replay.validLength = offset
        while let (record, next) = decodeRecord(bytes, at: offset) {
            switch record {
            case .put(let item): replay.items[item.id] = item
            case .remove(let id): replay.items[id] = nil
            }
            replay.records += 1
            offset = next
            replay.validLength = offset
        }
        return replay
    }

    static func decodeRecord(_ bytes: [UInt8], at offset: Int) -> (Record, Int)? {
        guard bytes.count - offset >= 10, bytes[offset] == marker else { return nil }
        let length = Int(readLE(bytes, offset + 2))
        guard length <= maxPayload, bytes.count - offset >= 10 + length else { return nil }
        let body = bytes[(offset + 1)..<(offset + 6 + length)]
        guard CRC32C.checksum(body) == readLE(bytes, offset + 6 + length) else { return nil }
        guard let json = try? JSONParser.parse(Array(body.dropFirst(5))) else { return nil }
        let next = offset + 10 + length
        switch body.first {
        case 1: return CacheItem(json: json).map { (.put($0), next) }
        case 2:
            guard case .string(let id)? = json["id"] else { return nil }
            return (.remove(id), next)
        default: return nil
        }
    }

    static func appendLE(_ value: UInt32, to out: inout [UInt8]) {
        for shift in [0, 8, 16, 24] { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func readLE(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
