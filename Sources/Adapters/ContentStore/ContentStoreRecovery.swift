import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// What opening the store repaired.
public struct RecoveryReport: Sendable, Equatable {
    public var records = 0
    /// Bytes cut from the journal's torn tail.
    public var tornBytes = 0
    /// Files the index named whose object was missing or short (dropped from their item).
    public var droppedFiles = 0
    /// Objects and temporary files no record named (removed).
    public var removedOrphans = 0
}

/// Recovery at open: temp files removed, the journal replayed and its torn tail cut, entries
/// whose object is missing or short dropped (a `cached` item then becomes `partially-cached` or
/// `failed` with `item-corrupted` — never served as complete), unreferenced objects removed.
enum ContentStoreRecovery {
    struct Opened {
        var items: [String: CacheItem]
        var report: RecoveryReport
        var fd: Int32
        var length: Int
    }

    static func open(directory: String) throws(ContentStoreError) -> Opened {
        var report = RecoveryReport()
        for name in FileIO.list(directory + "/tmp") {
            unlink(directory + "/tmp/" + name)
            report.removedOrphans += 1
        }
        unlink(directory + "/index.journal.compact")
        let path = directory + "/index.journal"
        let bytes = FileIO.size(path) == nil ? [] : try FileIO.readAll(path)
        var replay = CacheJournal.replay(bytes)
        report.records = replay.records
        let fd: Int32
        if !replay.hadHeader {
            if !bytes.isEmpty, bytes.count >= CacheJournal.header.count {
                // Not ours or damaged at the start: keep it aside rather than silently destroy it.
                try FileIO.rename(path, path + ".unreadable")
            }
            fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
            try FileIO.writeAll(fd, CacheJournal.header, path: path)
            try FileIO.sync(fd, path: path)
            try FileIO.syncDirectory(directory)
            replay.validLength = CacheJournal.header.count
        } else {
            fd = try FileIO.open(path, O_WRONLY | O_APPEND)
            if replay.validLength < bytes.count {
                report.tornBytes = bytes.count - replay.validLength
                guard ftruncate(fd, off_t(replay.validLength)) == 0 else { close(fd); throw .errno("ftruncate", path) }
                try FileIO.sync(fd, path: path)
            }
        }
        var opened = Opened(items: replay.items, report: report, fd: fd, length: replay.validLength)
        try checkObjects(&opened, directory: directory)
        return opened
    }

    /// Drops files whose object is gone or short, records the repaired items, removes orphans.
    private static func checkObjects(_ opened: inout Opened, directory: String) throws(ContentStoreError) {
        for id in opened.items.keys.sorted() {
            guard var item = opened.items[id] else { continue }
            let kept = item.files.filter { FileIO.size(directory + "/objects/" + $0.sha256) == $0.size }
            guard kept.count != item.files.count else { continue }
            opened.report.droppedFiles += item.files.count - kept.count
            item.files = kept
            if item.state == .cached {
                item.restore(kept.isEmpty ? .failed : .partiallyCached)
                if kept.isEmpty { item.error = .itemCorrupted }
            } else if item.state == .partiallyCached, kept.isEmpty {
                item.restore(.discovered)
            }
            let record = CacheJournal.encode(.put(item))
            try FileIO.writeAll(opened.fd, record, path: directory + "/index.journal")
            try FileIO.sync(opened.fd, path: directory + "/index.journal")
            opened.length += record.count
            opened.items[id] = item
        }
        let referenced = Set(opened.items.values.flatMap { $0.files.map(\.sha256) })
        var removed = false
        for name in FileIO.list(directory + "/objects") where !referenced.contains(name) {
            unlink(directory + "/objects/" + name)
            opened.report.removedOrphans += 1
            removed = true
        }
        if removed { try FileIO.syncDirectory(directory + "/objects") }
    }
}
