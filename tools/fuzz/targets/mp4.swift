// Progressive MP4s as the cache reads them for MP4 clips (MP4Movie, MP4HLS, TSMuxer): any bytes
// as a file, whose sample tables are read and whose first segments are muxed to TS. Never traps;
// every sample of a read movie lies inside the file; the TS is whole 188-byte packets.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    let source = MP4Bytes(bytes)
    guard let movie = try? MP4Movie(source) else { return }
    for track in [movie.video, movie.audio].compactMap({ $0 }) {
        require(!track.samples.isEmpty && track.timescale > 0, "a track read has samples and a timescale")
        for sample in track.samples.prefix(4096) {
            require(sample.offset >= 0 && sample.offset + Int64(sample.size) <= source.size, "samples lie inside the file")
        }
    }
    for segment in MP4HLS.plan(movie).prefix(3) {
        require(segment.durationSeconds >= 0, "a segment lasts zero seconds or more")
        if let ts = try? MP4HLS.transportStream(segment, of: movie, from: source) {
            require(ts.count % 188 == 0 && ts.count >= 376, "whole packets, PAT and PMT first")
        }
    }
}
