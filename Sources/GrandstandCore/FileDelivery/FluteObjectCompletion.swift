/// How a file's object is assembled (memory or disk) and what happens when it completes.
extension FluteReceiver {
    /// Wait after the disk was found too full before trying a new on-disk assembly (1 s).
    static let diskRetryNanoseconds: Int64 = 1_000_000_000

    /// The assembly of a new object: on disk when the receiver has a store provider and the
    /// object is large (or the channel is disk-only) and carries no Content-Encoding (decoding
    /// runs in memory, so coded objects stay within `maxObjectBytes`); in memory otherwise.
    mutating func makeAssembly(_ info: FECObjectInfo, file: inout FileState, now: Int64) -> Result<ObjectAssembly, FluteDrop> {
        let coded = !ContentCoding.isIdentity(file.entry.contentEncoding)
        if let stores, !coded, configuration.diskOnly || info.transferLength > UInt64(configuration.diskThresholdBytes) {
            guard info.transferLength <= UInt64(configuration.maxDiskObjectBytes) else { return .failure(.objectTooLarge) }
            guard now >= file.retryAfter else { return .failure(.noDiskSpace) }
            guard info.blocks != nil else { return .failure(.badFECInfo) }
            let store: any SymbolStore
            do { store = try stores.makeStore(transferLength: Int(info.transferLength)) } catch {
                if error.errno == SymbolStoreError.noSpace {
                    file.retryAfter = now + Self.diskRetryNanoseconds
                    file.failure = "no_disk_space"
                    return .failure(.noDiskSpace)
                }
                file.failure = "store_failed"
                return .failure(.storeFailed)
            }
            // Held blocks get what memory the budget has left (none: every symbol is written as it
            // comes); they never keep an object off the disk.
            let room = configuration.maxBufferedBytes - bufferedBytes - ObjectAssembly.bookkeepingBytes(info.blocks ?? [])
            guard let made = ObjectAssembly(info: info, store: store, blockBufferBytes: max(0, min(configuration.diskBlockBufferBytes, room))) else {
                return .failure(.badFECInfo)
            }
            guard bufferedBytes + made.bufferedBytes <= configuration.maxBufferedBytes else { return .failure(.bufferFull) }
            return .success(made)
        }
        guard info.transferLength <= UInt64(configuration.maxObjectBytes) else { return .failure(.objectTooLarge) }
        guard let made = ObjectAssembly(info: info) else { return .failure(.badFECInfo) }
        guard bufferedBytes + made.bufferedBytes <= configuration.maxBufferedBytes else { return .failure(.bufferFull) }
        return .success(made)
    }

    /// A complete assembly: memory objects as bytes (below); on-disk objects checked streaming
    /// against Content-Length and Content-MD5 (RFC 6726 §3.4.2, RFC 1864) read back from the
    /// spool file a chunk at a time, then sealed (cut to Transfer-Length, fsynced).
    mutating func finish(tsi: UInt64, toi: UInt64, file: FileState, assembly: inout ObjectAssembly, events: inout [FluteEvent]) {
        guard assembly.spooled else {
            finish(tsi: tsi, toi: toi, file: file, bytes: assembly.takeBytes(), events: &events)
            return
        }
        let length = assembly.info.transferLength
        if let expected = file.entry.contentLength, expected != length {
            fail(tsi: tsi, toi: toi, file: file, reason: "content_length_mismatch", events: &events)
            return
        }
        let md5: [UInt8]
        switch assembly.digest() {
        case .failure:
            fail(tsi: tsi, toi: toi, file: file, reason: "store_failed", events: &events, drop: .storeFailed)
            return
        case .success(let digest): md5 = digest
        }
        if let expected = file.entry.md5, expected != md5 {
            stats.md5Mismatches += 1
            fail(tsi: tsi, toi: toi, file: file, reason: "md5_mismatch", events: &events)
            return
        }
        switch assembly.seal(md5: md5) {
        case .failure:
            fail(tsi: tsi, toi: toi, file: file, reason: "store_failed", events: &events, drop: .storeFailed)
        case .success(.bytes(let bytes)):
            complete(tsi: tsi, toi: toi, file: file, bytes: bytes, spool: nil, events: &events)
        case .success(.file(let spool)):
            complete(tsi: tsi, toi: toi, file: file, bytes: [], spool: spool, events: &events)
        }
    }

    /// A complete transport object: decoded when the FDT names a Content-Encoding, checked
    /// against Content-Length (the length before encoding, RFC 6726 §3.4.2) and Content-MD5.
    /// The digest is over the file before content encoding (as RFC 6726 senders such as
    /// MAD-FLUTE and ypo/flute compute it); a digest of the transport object (RFC 2616 §14.15's
    /// entity-body reading) is accepted too. Any failure stores nothing.
    mutating func finish(tsi: UInt64, toi: UInt64, file: FileState, bytes: [UInt8], events: inout [FluteEvent]) {
        var failure: String? = nil
        var content = bytes
        if !ContentCoding.isIdentity(file.entry.contentEncoding), let encoding = file.entry.contentEncoding {
            switch ContentCoding.decode(bytes, encoding: encoding, limit: configuration.maxObjectBytes) {
            case .success(let decoded): content = decoded
            case .failure(.unsupported): failure = "unsupported_content_encoding"
            case .failure(.corrupt), .failure(.tooLarge):
                failure = "content_decoding_failed"
                stats.contentDecodingFailures += 1
            }
        }
        if failure == nil, let length = file.entry.contentLength, UInt64(content.count) != length {
            failure = "content_length_mismatch"
        } else if failure == nil, let md5 = file.entry.md5, MD5.digest(content) != md5, content == bytes || MD5.digest(bytes) != md5 {
            failure = "md5_mismatch"
            stats.md5Mismatches += 1
        }
        if let failure {
            fail(tsi: tsi, toi: toi, file: file, reason: failure, events: &events)
            return
        }
        complete(tsi: tsi, toi: toi, file: file, bytes: content, spool: nil, events: &events)
    }

    /// The object could not be used: counted, its buffers (or spool file) dropped, reported;
    /// the carousel's next round tries again.
    mutating func fail(tsi: UInt64, toi: UInt64, file: FileState, reason: String, events: inout [FluteEvent], drop: FluteDrop? = nil) {
        stats.objectsFailed += 1
        if let drop { stats.drop(drop) }
        sessions[tsi]?.files[toi]?.assembly = nil
        sessions[tsi]?.files[toi]?.state = .failed
        sessions[tsi]?.files[toi]?.failure = reason
        events.append(.failed(tsi: tsi, toi: toi, contentLocation: file.entry.contentLocation, reason: reason))
    }

    private mutating func complete(tsi: UInt64, toi: UInt64, file: FileState, bytes: [UInt8], spool: SpooledObject?,
                                   events: inout [FluteEvent]) {
        stats.objectsCompleted += 1
        sessions[tsi]?.files[toi]?.assembly = nil
        sessions[tsi]?.files[toi]?.state = .complete
        sessions[tsi]?.files[toi]?.failure = nil
        events.append(.completed(FluteObject(tsi: tsi, toi: toi, contentLocation: file.entry.contentLocation,
                                             contentType: file.entry.contentType, fdtInstance: file.instance, bytes: bytes, spool: spool)))
    }
}
