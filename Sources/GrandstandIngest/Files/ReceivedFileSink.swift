import GrandstandCore

/// Where file channels (FLUTE, RFC 6726) put a completed object, and where the fan listener's
/// `/files/ID/PATH` finds it. The content cache implements it (one store for received files and
/// prefetched items, docs/cache.md); `DirectoryFileSink` is the plain stand-in for tests and replay.
public protocol ReceivedFileSink: Sendable {
    /// Stores a complete, verified object durably (temporary name, fsync, rename) and returns
    /// where it now lives. A newer version of the same (channel, path) replaces the older one.
    func store(_ file: ReceivedFile) throws -> StoredFile
    /// The stored file for a channel's Content-Location path, nil when unknown.
    func lookup(channelID: String, path: String) -> StoredFile?
    /// Every stored file of a channel (the distribution table's local side).
    func files(channelID: String) -> [StoredFile]
    /// Where objects assembled on disk are spooled: a folder on the sink's filesystem, so a
    /// complete spool file is renamed into place (nil: every object is assembled in memory).
    var spoolDirectory: String? { get }
}

extension ReceivedFileSink {
    public var spoolDirectory: String? { nil }
}

/// One complete FLUTE object as delivered by the file channel receiver.
public struct ReceivedFile: Sendable {
    public var channelID: String
    /// The FDT's Content-Location, normalised to a relative path without `..` (the served name).
    public var path: String
    public var contentType: String?
    /// Transport Object Identifier and FDT instance that described it.
    var toi: UInt64
    var fdtInstance: UInt32
    /// The file's bytes; empty when it arrives as a spool file.
    public var bytes: [UInt8]
    /// The complete, fsynced file assembled on disk: the sink renames it into place.
    public var spool: SpooledObject? = nil

    /// Bytes of the file.
    public var size: Int { spool?.size ?? bytes.count }
    /// Capture time of the packet that completed it (CLOCK_REALTIME ns).
    public var completedNanoseconds: Int64
}

/// A stored received file: where it is on disk and what the listener needs to serve it.
public struct StoredFile: Sendable, Equatable {
    public var channelID: String
    public var path: String
    public var localPath: String
    public var size: Int
    public var contentType: String?
    /// A strong validator (e.g. hex MD5 or SHA-256 prefix) for ETag.
    public var etag: String
    public var storedNanoseconds: Int64

    public init(channelID: String, path: String, localPath: String, size: Int, contentType: String? = nil, etag: String, storedNanoseconds: Int64) {
        self.channelID = channelID
        self.path = path
        self.localPath = localPath
        self.size = size
        self.contentType = contentType
        self.etag = etag
        self.storedNanoseconds = storedNanoseconds
    }
}
