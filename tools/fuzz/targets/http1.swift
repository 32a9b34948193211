// The fan listener's request-head parser (HTTP1RequestParser, RFC 9112) on any bytes: the first
// input byte picks where a first read ends, the rest is what a client sent. Properties: a parser
// that saw the prefix answers the whole buffer exactly as a fresh one does (the resumed search
// loses nothing); a head found in the prefix is the whole buffer's head; a head never carries a
// `..` segment or a NUL in its path and never claims more bytes than it was given; every refusal
// maps to one of the statuses the engine sends.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let request = Array(bytes.dropFirst())
    var limits = HTTP1RequestParser.Limits()
    // Small limits now and then, so 414/431 paths are reached with short inputs.
    if first & 0x80 != 0 { limits.maxHeadBytes = 256; limits.maxTargetBytes = 64 }
    var fresh = HTTP1RequestParser(limits: limits)
    let whole = fresh.parse(request)
    check(whole, given: request.count)

    let split = request.isEmpty ? 0 : Int(first & 0x7F) * request.count / 127
    var resumed = HTTP1RequestParser(limits: limits)
    let early = resumed.parse(Array(request.prefix(split)))
    check(early, given: split)
    switch early {
    case .incomplete:
        let later = resumed.parse(request)
        require(later == whole, "resumed after \(split) bytes: \(later), fresh: \(whole)")
    case .head:
        require(early == whole, "head in the prefix \(early) differs from the whole buffer's \(whole)")
    case .failure:
        break   // an early refusal (size limits) closes the connection: nothing is resumed
    }
}

private func check(_ outcome: HTTP1RequestParser.Outcome, given count: Int) {
    switch outcome {
    case .incomplete:
        break
    case .head(let head, let consumed):
        require(consumed > 0 && consumed <= count, "consumed \(consumed) of \(count)")
        require(!head.path.split(separator: "/", omittingEmptySubsequences: false).contains(".."), "dot-dot in \(head.path)")
        require(!head.path.utf8.contains(0), "NUL in the path")
        if case .length(let n) = head.body { require(n >= 0, "negative Content-Length \(n)") }
    case .failure(let error):
        require([400, 414, 431, 501, 505].contains(error.status), "status \(error.status) for \(error)")
    }
}
