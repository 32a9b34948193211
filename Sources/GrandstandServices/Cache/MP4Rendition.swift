import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// The HLS rendition of an item's MP4 (docs/cache.md "Items by URL"): made once, when the file
/// is stored, as derived files `hls/segN.ts` and, last, `hls/index.m3u8` (each stored as every
/// cache file is: temporary file, fsync, rename, journal record), so a crash part way leaves no
/// playlist and the next run makes it again. The MP4 is read from disk in bounded pieces (its
/// `moov`, then one sample at a time); one segment's TS is held in memory at a time.
extension ContentCache {
    static let renditionPlaylist = "hls/index.m3u8"

    /// Makes the rendition of item `id`'s file at `path` when it is an MP4 (it starts with an
    /// `ftyp` box) and has none yet; other files are left as they are. A malformed MP4 fails
    /// the download (`item-corrupted`, with the reason).
    func makeRendition(_ id: String, path: String, stop: StopSignal) throws {
        guard file(id, path: Self.renditionPlaylist) == nil, let (_, _, local) = file(id, path: path),
              let source = FileByteSource(path: local) else { return }
        guard source.read(at: 4, count: 4) == Array("ftyp".utf8) else { return }
        func corrupted(_ error: MP4Error) -> OriginFailure {
            OriginFailure(code: .itemCorrupted, detail: "\(path) is not a playable MP4: \(error)", retryable: false)
        }
        let movie: MP4Movie
        do throws(MP4Error) { movie = try MP4Movie(source) } catch { throw corrupted(error) }
        let segments = MP4HLS.plan(movie)
        guard !segments.isEmpty else { throw corrupted(.malformed("no samples")) }
        for (index, segment) in segments.enumerated() {
            if stop.isRaised { return }
            let bytes: [UInt8]
            do throws(MP4Error) { bytes = try MP4HLS.transportStream(segment, of: movie, from: source) } catch { throw corrupted(error) }
            try storeRendition(bytes, id: id, path: "hls/seg\(index).ts", contentType: "video/mp2t")
        }
        let playlist = MP4HLS.playlist(segments) { "seg\($0).ts" }
        try storeRendition(Array(playlist.utf8), id: id, path: Self.renditionPlaylist, contentType: "application/vnd.apple.mpegurl")
    }

    /// A local refusal (no room, a write error) is not the MP4's fault: `download-failed`.
    private func storeRendition(_ bytes: [UInt8], id: String, path: String, contentType: String) throws {
        do {
            try storeBytes(bytes, id: id, path: path, contentType: contentType)
        } catch {
            throw OriginFailure(code: .downloadFailed, detail: "storing \(path): \(error)", retryable: false)
        }
    }
}

/// A file read with `pread` in the pieces asked for (MP4Movie, MP4HLS).
final class FileByteSource: MP4ByteSource, @unchecked Sendable {
    private let fd: Int32
    let size: Int64

    init?(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else { close(fd); return nil }
        size = Int64(info.st_size)
    }

    deinit { close(fd) }

    func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            done += got
        }
        return out
    }
}
