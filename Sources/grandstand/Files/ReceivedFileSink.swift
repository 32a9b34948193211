/// Where file channels (FLUTE, RFC 6726) put a completed object, and where the fan listener's
/// `/files/ID/PATH` finds it. The content cache implements it (one store for received files and
/// prefetched items, docs/cache.md); `DirectoryFileSink` is the plain stand-in for tests and replay.
protocol ReceivedFileSink: Sendable {
    /// Stores a complete, verified object durably (temporary name, fsync, rename) and returns
    /// where it now lives. A newer version of the same (channel, path) replaces the older one.
    func store(_ file: ReceivedFile) throws -> StoredFile
    /// The stored file for a channel's Content-Location path, nil when unknown.
    func lookup(channelID: String, path: String) -> StoredFile?
    /// Every stored file of a channel (the distribution table's local side).
    func files(channelID: String) -> [StoredFile]
}

/// One complete FLUTE object as delivered by the file channel receiver.
struct ReceivedFile: Sendable {
    var channelID: String
    /// The FDT's Content-Location, normalised to a relative path without `..` (the served name).
    var path: String
    var contentType: String?
    /// Transport Object Identifier and FDT instance that described it.
    var toi: UInt64
    var fdtInstance: UInt32
    var bytes: [UInt8]
    /// Capture time of the packet that completed it (CLOCK_REALTIME ns).
    var completedNanoseconds: Int64
}

/// A stored received file: where it is on disk and what the listener needs to serve it.
struct StoredFile: Sendable, Equatable {
    var channelID: String
    var path: String
    var localPath: String
    var size: Int
    var contentType: String?
    /// A strong validator (e.g. hex MD5 or SHA-256 prefix) for ETag.
    var etag: String
    var storedNanoseconds: Int64
}
