// The small text parsers behind URLs, query strings and options, on any text:
//   - fan `live.m3u8?_HLS_msn=&_HLS_part=` (ReloadRequest + the reload decision) and
//     `rewind.m3u8?offset=|at=` (RewindPosition + the rewind playlist) against a packager that
//     holds a few segments;
//   - management `/api/v1/logs?…` (LogQuery, LogTime: a formatted time parses back to itself);
//   - `reporting.upload` URLs (UploadTarget: its description parses back to the same target);
//   - addresses (IPAddress: description round trip), license attributes (LicenseTriplet),
//     `grandstand send` drop patterns and FEC specs.
// Byte 0 picks the parser; the rest is the text (byte 1 also a number for some).
@testable import GrandstandCore

/// A packager with four 1 s segments (25 fps, keyframe every 25 frames) and an open one.
nonisolated(unsafe) let packager: HLSPackager = {
    var packager = HLSPackager(segmenter: SegmenterConfiguration(targetDuration: 1, partTarget: 0.2),
                               window: WindowConfiguration(window: 30))
    var stream = SyntheticStream()
    for frame in 0..<110 {
        _ = packager.ingest(stream.frame(keyframe: frame % 25 == 0)[...], timestampNanoseconds: stream.capture)
        stream.dts += 3600
        stream.capture += 40_000_000
    }
    return packager
}()

func fuzzOne(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    switch selector % 8 {
    case 0:
        if case .success(let request) = ReloadRequest.parse(query: text[...]) {
            _ = packager.reloadDecision(msn: request.msn, part: request.part)
        }
    case 1:
        if let position = RewindPosition.parse(query: text[...]) {
            let playlist = packager.rewindPlaylist(position)
            require(playlist.hasPrefix("#EXTM3U") && playlist.contains("#EXT-X-START"), "rewind playlist: \(playlist)")
        }
    case 2:
        var arguments: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            arguments[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        let now: UInt64 = 1_790_000_000_000_000
        if case .success(let query) = LogQuery.parse(arguments, nowMicroseconds: now) {
            require((1...LogQuery.maximumLimit).contains(query.limit), "limit \(query.limit)")
            if let since = query.sinceMicroseconds, let until = query.untilMicroseconds { require(since <= until, "since > until") }
            _ = query.matches
        }
    case 3:
        var cursor = FuzzCursor(Array(bytes.dropFirst()))
        let micros = UInt64(cursor.u32()) << 24 | UInt64(cursor.u32() & 0xFF_FFFF)
        let bounded = micros % 253_402_300_800_000_000   // before year 10000
        let formatted = LogTime.format(microseconds: bounded)
        require(LogTime.parse(formatted, nowMicroseconds: 0) == bounded, "\(bounded) → \(formatted) does not parse back")
        _ = LogTime.parse(text, nowMicroseconds: UInt64(bytes.count) << 40)
    case 4:
        if case .success(let target) = UploadTarget.parse(text) {
            let again = UploadTarget.parse(target.description)
            require(again == .success(target), "\(text) → \(target) → \(again)")
        }
    case 5:
        if let address = IPAddress(parsing: text) {
            require(IPAddress(parsing: address.description) == address, "\(text) → \(address) does not parse back")
        }
    case 6:
        if case .success(let license) = LicenseTriplet.parse(text) {
            require(!license.venueName.isEmpty && !license.contentOwner.isEmpty && !license.appDeveloper.isEmpty, "empty field")
        }
    default:
        if case .success(let rule) = LossModel.parsePattern(text) {
            var model = LossModel(rule: rule, seed: 1)
            for _ in 0..<64 { _ = model.shouldDrop() }
        }
        _ = StreamerFEC.parse(text, mediaPort: UInt16(bytes.count % 65_536))
    }
}
