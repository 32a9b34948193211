import GrandstandCore
import GrandstandRuntime
import HTTPClient
#if canImport(Glibc)
import Glibc
#endif

/// Streams one origin file into a resumable partial file (`partial/NAME`): continues with
/// `Range: bytes=N-` after an interruption (a pause, a restart, a short body), checks the length
/// the origin announced, fsyncs. The caller verifies the hash when it adopts the file.
struct FileDownload {
    let fetch: OriginFetch
    let url: String
    let partialPath: String
    let maxBytes: Int
    /// True when the download must stop now (pause, delete, shutdown); checked per chunk.
    let stop: StopSignal
    /// Bytes received, for the daily limit.
    let received: (Int) -> Void

    enum Outcome { case complete(size: Int), stopped }

    func run() throws(OriginFailure) -> Outcome {
        try fetch.retrying(stop: stop) { () throws(OriginFailure) -> Outcome in try attempt() }
    }

    private func attempt() throws(OriginFailure) -> Outcome {
        var have = 0
        var info = stat()
        if stat(partialPath, &info) == 0 { have = Int(info.st_size) }
        let fd = open(partialPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw local("open", errno) }
        defer { close(fd) }
        let (client, target) = try fetch.client(fetch.url(url))
        var headers = fetch.headers
        if have > 0 { headers.append(("Range", "bytes=\(have)-")) }
        var expected: Int?
        var written = have
        var failure: OriginFailure?
        var began = false
        let response: HTTPClientResponse
        do {
            response = try client.stream(target, headers: headers) { chunk in
                if !began { began = true }
                let count = chunk.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(written)) }
                guard count == chunk.count else { failure = local("write", errno); return false }
                written += count
                received(count)
                if written > maxBytes {
                    failure = OriginFailure(code: .downloadFailed, detail: "\(url) is over the \(maxBytes)-byte file limit", retryable: false)
                    return false
                }
                return !stop.isRaised
            }
        } catch {
            fsync(fd)
            throw OriginFailure.transport(error)
        }
        _ = began
        if let failure { throw failure }
        if response.status == 416, have > 0 {
            // The partial file is already whole (or the origin changed): let the hash decide, else restart.
            _ = ftruncate(fd, 0)
            throw OriginFailure(code: .httpError, detail: "\(url): 416 for bytes=\(have)-", retryable: true)
        }
        try OriginFetch.check(response.status, url: url, notFound: .httpError)
        if response.status == 200, have > 0 {
            // The origin ignored the Range: the body started at byte 0, so the file must be rewritten.
            _ = ftruncate(fd, 0)
            throw OriginFailure(code: .itemCorrupted, detail: "\(url): Range ignored, restarting", retryable: true)
        }
        if let length = response.headers["content-length"].flatMap({ Int($0) }) {
            expected = (response.status == 206 ? have : 0) + length
        }
        if let total = response.headers["content-range"]?.split(separator: "/").last.flatMap({ Int($0) }) { expected = total }
        if let expected, expected > maxBytes {
            throw OriginFailure(code: .downloadFailed, detail: "\(url) is \(expected) bytes, over the \(maxBytes)-byte file limit", retryable: false)
        }
        _ = ftruncate(fd, off_t(written))
        guard fsync(fd) == 0 else { throw local("fsync", errno) }
        if stop.isRaised { return .stopped }
        if let expected, written < expected {
            throw OriginFailure(code: .itemCorrupted, detail: "\(url): body ended at \(written) of \(expected) bytes", retryable: true)
        }
        return .complete(size: written)
    }

    private func local(_ operation: String, _ code: Int32) -> OriginFailure {
        OriginFailure(code: .downloadFailed, detail: "\(operation) \(partialPath): \(String(cString: strerror(code)))", retryable: false)
    }
}
