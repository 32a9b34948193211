import GrandstandCore

/// The catalog feed arriving over a file channel: when a file named `catalog.feedFile` (default
/// `catalog.json`) completes on any file channel, its bytes replace the catalog (source
/// `flute:CHANNEL/PATH`); an unusable one is rejected and the previous catalog stays
/// (docs/catalog.md "Feed sources"). Runs on the capture thread after the file is stored.
extension CatalogFeed {
    /// The `FileChannels.completed` hook for `feedFile` (nil: file channels never feed the catalog).
    func fileChannelHook(feedFile: String?) -> (@Sendable (String, String, [UInt8]) -> Void)? {
        guard let feedFile else { return nil }
        return { [self] channel, path, bytes in
            guard path == feedFile else { return }
            _ = try? update(bytes: bytes, source: "flute:\(channel)/\(path)")
        }
    }
}
