import CurlHTTP
import GrandstandCore
import GrandstandRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Streams one origin file into a resumable partial file (`partial/NAME`) as it arrives, never
/// whole in memory: continues with `Range: bytes=N-` and `If-Range:` (the validator the partial
/// bytes came with, kept in `NAME.validator`) after an interruption (a pause, a restart, a cut
/// connection); an origin that answers 200 instead (the file changed, or it ignores ranges)
/// starts the file over in the same request. Checks the length the origin announced, fsyncs.
/// The caller verifies the hash when it adopts the file.
struct FileDownload {
    let fetch: OriginFetch
    let url: String
    /// The token hook's file type (nil: the URL's extension; `key` for HLS keys).
    var type: String? = nil
    let partialPath: String
    let maxBytes: Int
    /// True when the download must stop now (pause, delete, shutdown); ends the transfer within 0.1 s.
    let stop: StopSignal
    /// Per chunk: its bytes (the daily limit), the file's bytes so far and its size when the
    /// origin said (progress events).
    let received: (_ count: Int, _ fileBytes: Int, _ fileSize: Int?) -> Void

    enum Outcome { case complete(size: Int), stopped }

    var validatorPath: String { partialPath + ".validator" }

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
        var request = fetch.request(url, type: type)
        if have > 0 {
            request.resumeFrom = have
            request.ifRange = readValidator()
        }
        var expected: Int?
        var written = have
        var failure: OriginFailure?
        let response: CurlResponse
        do throws(CurlError) {
            response = try fetch.client.stream(request, stop: stop, head: { head in
                guard head.status == 200 || head.status == 206 else { return false }
                if head.status == 200, have > 0 {
                    // The whole file again (changed since the partial bytes, or Range ignored): start over.
                    if ftruncate(fd, 0) != 0 { failure = local("truncate", errno) }
                    have = 0
                    written = 0
                }
                if let total = head.headers["content-range"]?.split(separator: "/").last.flatMap({ Int($0) }) {
                    expected = total
                } else if let length = head.headers["content-length"].flatMap({ Int($0) }) {
                    expected = have + length
                }
                if let expected, expected > maxBytes {
                    failure = OriginFailure(code: .downloadFailed, detail: "\(url) is \(expected) bytes, over the \(maxBytes)-byte file limit",
                                            retryable: false)
                }
                writeValidator(head.validator)
                return true
            }) { chunk in
                guard failure == nil else { return false }
                let count = pwrite(fd, chunk.baseAddress, chunk.count, off_t(written))
                guard count == chunk.count else { failure = local("write", errno); return false }
                written += count
                received(count, written, expected)
                if written > maxBytes {
                    failure = OriginFailure(code: .downloadFailed, detail: "\(url) is over the \(maxBytes)-byte file limit", retryable: false)
                    return false
                }
                return !stop.isRaised
            }
        } catch {
            // What arrived is kept: the next attempt (or the next start) asks for the rest.
            fsync(fd)
            if let failure { throw failure }
            if error.kind == .stopped || stop.isRaised { return .stopped }
            if error.kind == .partialBody {
                throw OriginFailure(code: .itemCorrupted, detail: "\(url): body ended at \(written) of \(expected.map(String.init) ?? "?") bytes"
                                    + " (\(error))", retryable: true)
            }
            throw OriginFailure.transport(error)
        }
        if let failure { throw failure }
        if response.status == 416, have > 0 {
            // The partial file is already whole (or the origin changed): let the hash decide, else restart.
            _ = ftruncate(fd, 0)
            throw OriginFailure(code: .httpError, detail: "\(url): 416 for bytes=\(have)-", retryable: true)
        }
        try OriginFetch.check(response.status, url: url, notFound: .httpError)
        _ = ftruncate(fd, off_t(written))
        guard fsync(fd) == 0 else { throw local("fsync", errno) }
        if stop.isRaised { return .stopped }
        if let expected, written < expected {
            throw OriginFailure(code: .itemCorrupted, detail: "\(url): body ended at \(written) of \(expected) bytes", retryable: true)
        }
        unlink(validatorPath)
        return .complete(size: written)
    }

    private func readValidator() -> String? {
        let fd = open(validatorPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return text.isEmpty || text.contains("\n") ? nil : text
    }

    /// Keeps (or forgets) the validator of the response the partial bytes now come from.
    private func writeValidator(_ validator: String?) {
        guard let validator, !validator.isEmpty, validator.utf8.count < 512, !validator.contains("\n") else {
            unlink(validatorPath)
            return
        }
        let fd = open(validatorPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        _ = Array(validator.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private func local(_ operation: String, _ code: Int32) -> OriginFailure {
        OriginFailure(code: .downloadFailed, detail: "\(operation) \(partialPath): \(String(cString: strerror(code)))", retryable: false)
    }
}
