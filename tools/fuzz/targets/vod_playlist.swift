// Origin playlists as the download-to-go cache reads them (VODPlaylist, VariantChoice,
// OriginURL): any text as a master or media playlist, every URI found with its role (variants,
// EXT-X-MEDIA renditions, EXT-X-KEY keys, init sections), masters cut down to a quality choice,
// URIs rewritten and resolved. Byte 0 picks the choice. Never traps; invariants below.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    guard let shape = bytes.first else { return }
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    guard let playlist = VODPlaylist(text) else { return }
    let choices: [VariantChoice] = [.all, .highest, .lowest, .within(maxBandwidth: Int(shape) * 1000, maxHeight: nil),
                                    .within(maxBandwidth: nil, maxHeight: Int(shape) * 4)]
    let choice = choices[Int(shape) % choices.count]
    let chosen = choice.choose(playlist.variants)
    require(playlist.variants.isEmpty || !chosen.isEmpty, "a master with variants always keeps one")
    require(choice != .all || chosen.count == playlist.variants.count, "all keeps every variant")
    if let kept = playlist.master(keeping: { chosen.contains($0) }) {
        require(playlist.kind == .master, "only a master is cut down")
        if let again = VODPlaylist(kept) {
            require(again.variants.count <= playlist.variants.count, "cutting a master never adds variants")
        }
    }
    // Rewriting with the identity keeps the text; any rewrite keeps the reference count.
    let same = playlist.rewritten { $0 }
    let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.joined(separator: "\n")
    require(same == lines, "an identity rewrite keeps the playlist")
    let moved = playlist.rewritten { "/items/x/" + $0 }
    require(VODPlaylist(moved)?.references.count == playlist.references.count, "a rewrite keeps every reference")
    let base = "https://cdn.example/a/b/master.m3u8?token=1"
    for reference in playlist.references.prefix(64) {
        _ = reference.height
        _ = reference.bandwidth
        if OriginURL.isForeign(reference.uri) { continue }
        let absolute = OriginURL.resolve(reference.uri, against: base)
        _ = OriginURL.localPath(absolute, root: base)
    }
    _ = playlist.prefix(seconds: Double(shape))
    _ = playlist.segments
}
