/// The cache's policies (docs/cache.md "Policies"): size, per-file cap, concurrency, daily volume,
/// permitted hours (UTC), a free-disk floor, and the download-to-go SDK's download policies
/// (`itemDownloadBehavior`, auto-purge). Pure: usage and time are passed in.
public struct CachePolicy: Sendable, Equatable {
    public var sizeBytes = 5_000_000_000
    public var maxFileBytes = 104_000_000
    /// Downloads at once; nil: unlimited, as the SDK's default (one thread each).
    public var maxConcurrentDownloads: Int?
    /// What an item does once discovered (the SDK's `itemDownloadBehavior`, FullAuto by default).
    public var itemDownloadBehavior = DownloadBehavior.fullAuto
    /// Whether writing past `sizeBytes` evicts least-recently-used items (the SDK's auto-purge,
    /// on by default); off, such a write is refused and nothing is evicted.
    public var autoPurge = true
    /// Bytes the origin may deliver per UTC day; nil: no limit.
    public var dailyDownloadBytes: Int?
    /// UTC windows in which downloads may run; empty: any time.
    public var permittedHours: [HourWindow] = []
    /// Free space the filesystem must keep; downloads stop before going under it.
    public var diskFloorBytes = 256 << 20

    public init() {}

    /// Akamai PCD's `itemDownloadBehavior`: whether a discovered item downloads by itself.
    /// Raw values are the SDK's names (and the config's).
    public enum DownloadBehavior: String, Sendable, CaseIterable {
        /// Every discovered item downloads (the SDK's default).
        case fullAuto = "FullAuto"
        /// Only its thumbnail downloads; the item waits `discovered` until asked to download.
        case thumbnailOnly = "ThumbnailOnly"
        /// Nothing downloads until asked.
        case none = "None"
    }

    /// `HH:MM-HH:MM` in UTC; the end may be before the start (the window spans midnight).
    public struct HourWindow: Sendable, Equatable, CustomStringConvertible {
        public var startMinute: Int
        public var endMinute: Int

        public init?(_ text: String) {
            let parts = text.split(separator: "-")
            guard parts.count == 2, let start = Self.minute(parts[0]), let end = Self.minute(parts[1]), start != end else { return nil }
            startMinute = start
            endMinute = end
        }

        public func contains(minuteOfDay minute: Int) -> Bool {
            startMinute < endMinute ? (startMinute..<endMinute).contains(minute) : minute >= startMinute || minute < endMinute
        }

        public var description: String { Self.text(startMinute) + "-" + Self.text(endMinute) }

        private static func minute(_ text: Substring) -> Int? {
            let parts = text.split(separator: ":")
            guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
                  (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440 else { return nil }
            return h * 60 + m
        }

        private static func text(_ minute: Int) -> String {
            let h = minute / 60, m = minute % 60
            return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
        }
    }

    /// What the policy status reports and downloads consult.
    public struct Usage: Sendable, Equatable {
        public var storedBytes: Int
        public var freeDiskBytes: Int
        public var activeDownloads: Int
        public var downloadedTodayBytes: Int

        public init(storedBytes: Int, freeDiskBytes: Int, activeDownloads: Int, downloadedTodayBytes: Int) {
            self.storedBytes = storedBytes
            self.freeDiskBytes = freeDiskBytes
            self.activeDownloads = activeDownloads
            self.downloadedTodayBytes = downloadedTodayBytes
        }
    }

    /// Why a download may not start now (the API's `blocked` names).
    public enum Block: String, Sendable, CaseIterable {
        case outsidePermittedHours = "outside-permitted-hours"
        case dailyLimitReached = "daily-limit-reached"
        case diskFloorReached = "disk-floor-reached"
        case concurrencyLimit = "concurrency-limit"
    }

    /// Whether a new download may start, and every reason it may not.
    public func blocks(_ usage: Usage, nowSeconds: Int64) -> [Block] {
        var blocks: [Block] = []
        let minute = Int(((nowSeconds % 86400) + 86400) % 86400 / 60)
        if !permittedHours.isEmpty, !permittedHours.contains(where: { $0.contains(minuteOfDay: minute) }) {
            blocks.append(.outsidePermittedHours)
        }
        if let daily = dailyDownloadBytes, usage.downloadedTodayBytes >= daily { blocks.append(.dailyLimitReached) }
        if usage.freeDiskBytes <= diskFloorBytes { blocks.append(.diskFloorReached) }
        if let maxConcurrentDownloads, usage.activeDownloads >= maxConcurrentDownloads { blocks.append(.concurrencyLimit) }
        return blocks
    }

    /// Why a file of `size` bytes cannot be admitted at all (nil: it can, after eviction if needed).
    public func refusal(fileBytes size: Int) -> String? {
        if size > maxFileBytes { return "\(size) bytes is over the \(maxFileBytes)-byte file limit" }
        if size > sizeBytes { return "\(size) bytes is over the \(sizeBytes)-byte cache size" }
        return nil
    }
}

/// Counts the origin's bytes per UTC day for the daily limit.
public struct DailyDownloadCounter: Sendable, Equatable {
    public private(set) var day: Int64 = 0
    public private(set) var bytes = 0

    public init() {}

    public mutating func add(_ count: Int, nowSeconds: Int64) {
        roll(nowSeconds)
        bytes += count
    }

    public mutating func today(nowSeconds: Int64) -> Int {
        roll(nowSeconds)
        return bytes
    }

    private mutating func roll(_ nowSeconds: Int64) {
        let today = nowSeconds >= 0 ? nowSeconds / 86400 : (nowSeconds - 86399) / 86400
        if today != day { day = today; bytes = 0 }
    }
}
