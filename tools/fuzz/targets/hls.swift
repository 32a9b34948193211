// HLSPackager (segmenter, live window, playlists, rewind, blocking reload, resources) driven by
// a script of TS chunks, gaps and time steps:
//   0: TS chunk     [length u16][bytes] captured now
//   1: lost packets [count u8]
//   2: time step    [milliseconds u16]
//   3: read-back    [rewind seconds i8][msn u8][part u8]: playlists, reload decision, a resource
// Byte 0 picks the segment/part targets so cuts happen often. Ends with finish().
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    var cursor = FuzzCursor(bytes)
    let shape = cursor.u8()
    let segmenter = SegmenterConfiguration(targetDuration: 0.5 + Double(shape & 0x0F) * 0.25,
                                           partTarget: 0.1 + Double(shape >> 4) * 0.05)
    var packager = HLSPackager(segmenter: segmenter, window: WindowConfiguration(window: 4, byteCap: 1 << 20))
    var now: Int64 = 1_700_000_000_000_000_000
    while !cursor.isAtEnd {
        switch cursor.u8() % 4 {
        case 0:
            let update = packager.ingest(cursor.chunk(), timestampNanoseconds: now)
            checkParts(update, packager)
        case 1:
            let update = packager.gap(lostPackets: Int(cursor.u8()) + 1, timestampNanoseconds: now)
            checkParts(update, packager)
        case 2:
            now += Int64(cursor.u16()) * 1_000_000
        default:
            readBack(&cursor, packager)
        }
    }
    _ = packager.finish()
    let playlist = packager.livePlaylist()
    require(playlist.hasPrefix("#EXTM3U"), "a playlist starts with #EXTM3U")
    require(playlist.contains("#EXT-X-ENDLIST"), "a finished playlist ends with EXT-X-ENDLIST")
    _ = packager.statistics
}

func readBack(_ cursor: inout FuzzCursor, _ packager: HLSPackager) {
    let offset = Double(Int8(bitPattern: cursor.u8()))
    let msn = Int(cursor.u8())
    let part = Int(cursor.u8())
    require(packager.livePlaylist().hasPrefix("#EXTM3U"), "a playlist starts with #EXTM3U")
    _ = packager.rewindPlaylist(.offset(seconds: offset))
    _ = packager.rewindPlaylist(.programDateTime(nanoseconds: 1_700_000_000_000_000_000 + Int64(offset) * 1_000_000_000))
    _ = packager.reloadDecision(msn: msn, part: part % 8 == 7 ? nil : part % 8)
    _ = packager.resource(named: packager.window.segmentName(msn))
    _ = packager.resource(named: packager.window.partName(msn, part % 8))
}

/// Every published part can be fetched right away, unless its segment already left the window
/// in the same call (a long gap or a byte-cap eviction can do that).
func checkParts(_ update: HLSPackager.Update, _ packager: HLSPackager) {
    guard let oldest = packager.window.segments.first?.mediaSequence else { return }
    for part in update.partsPublished where part.mediaSequence >= oldest {
        if case .notFound = packager.resource(named: packager.window.partName(part.mediaSequence, part.index)) {
            require(false, "published part \(part.mediaSequence).\(part.index) not found")
        }
    }
}
