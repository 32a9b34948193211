// The fan listener's request-field parsers on any bytes: Range against a fuzzed length (with and
// without If-Range), If-None-Match lists. Properties: a partial range lies inside the body, and
// Content-Range always describes it; a tag we make always matches itself.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    var cursor = FuzzCursor(bytes)
    let length = Int(cursor.u32() % 100_000_000)
    let split = Int(cursor.u8())
    let rest = Array(cursor.take(bytes.count))
    let field = String(decoding: rest, as: UTF8.self)
    let other = String(decoding: rest.prefix(split), as: UTF8.self)
    let tag = EntityTag.forBody(Array(rest.suffix(16)))
    for ifRange in [nil, other, tag] {
        let selection = ByteRangeSelection.select(range: field, length: length, ifRange: ifRange, entityTag: tag)
        switch selection {
        case .partial(let first, let last):
            require(first >= 0 && first <= last && last < length, "range \(first)-\(last) outside \(length)")
            require(selection.contentRange(length: length) == "bytes \(first)-\(last)/\(length)", "content-range")
        case .unsatisfiable:
            require(selection.contentRange(length: length) == "bytes */\(length)", "416 content-range")
        case .full:
            break
        }
    }
    if let spec = ByteRangeSpec.parse(field), case .from(let first, let last?) = spec {
        require(first <= last, "parsed last < first")
    }
    _ = EntityTag.noneMatchFails(field, current: tag)
    _ = EntityTag.noneMatchFails(other, current: tag)
    require(EntityTag.noneMatchFails(tag, current: tag), "a tag matches itself")
    require(EntityTag.strongMatch(tag, tag), "a strong tag matches itself strongly")
    let made = EntityTag.strong(other)
    require(EntityTag.list(made)?.count == 1, "a made tag parses as one tag: \(made)")
}
