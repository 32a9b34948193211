// Inflate (zlib and raw DEFLATE) with a bounded output: the first byte picks the form.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let body = bytes[1...]
    let limit = 1 << 16
    let output: [UInt8]?
    if first & 1 == 0 {
        output = try? Inflate.zlib(body, limit: limit)
    } else {
        output = try? Inflate.raw(body, limit: limit)
    }
    if let output { require(output.count <= limit, "inflated output within the limit") }
}
