import ContentStore
import Foundation
import GrandstandCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ContentStoreTests {
    @Test func storedFilesSurviveReopenAndVerify() throws {
        let scratch = ScratchDirectory("reopen")
        defer { scratch.remove() }
        do {
            let store = try ContentStore(directory: scratch.path)
            try store.store(Array("hello".utf8), itemID: "a", path: "x/hello.txt", contentType: "text/plain", now: 5) { $0.restore(.cached) }
            try store.store(Array("world".utf8), itemID: "b", path: "w.txt", now: 6) { $0.restore(.cached) }
            try store.remove("b")
        }
        let store = try ContentStore(directory: scratch.path)
        #expect(store.items.keys.sorted() == ["a"])
        let file = try #require(store.items["a"]?.file("x/hello.txt"))
        #expect(file.sha256 == SHA256.hex(Array("hello".utf8)))
        #expect(file.contentType == "text/plain")
        #expect(scratch.bytes("objects/\(file.sha256)") == Array("hello".utf8))
        #expect(FileManager.default.fileExists(atPath: "\(scratch.path)/objects/\(SHA256.hex(Array("world".utf8)))") == false)
        #expect(store.verify().isEmpty)
        #expect(store.recovery.records == 3)
        #expect(store.recovery.tornBytes == 0 && store.recovery.droppedFiles == 0 && store.recovery.removedOrphans == 0)
    }

    @Test func aNewerVersionReplacesTheOldObject() throws {
        let scratch = ScratchDirectory("replace")
        defer { scratch.remove() }
        let store = try ContentStore(directory: scratch.path)
        try store.store(Array("v1".utf8), itemID: "a", path: "f", now: 1) { _ in }
        try store.store(Array("v2".utf8), itemID: "a", path: "f", now: 2) { _ in }
        #expect(store.items["a"]?.files.count == 1)
        #expect(store.items["a"]?.file("f")?.sha256 == SHA256.hex(Array("v2".utf8)))
        #expect(FileManager.default.fileExists(atPath: store.objectPath(SHA256.hex(Array("v1".utf8)))) == false)
    }

    @Test func recoveryCutsATornTailAndRemovesOrphans() throws {
        let scratch = ScratchDirectory("torn")
        defer { scratch.remove() }
        do {
            let store = try ContentStore(directory: scratch.path)
            try store.store(Array("kept".utf8), itemID: "a", path: "f", now: 1) { $0.restore(.cached) }
        }
        // A half-written record, an orphan object (renamed but never recorded), a temp file.
        var journal = try #require(scratch.bytes("index.journal"))
        let intact = journal.count
        journal += CacheJournal.encode(.remove("a")).dropLast(3)
        scratch.write("index.journal", journal)
        scratch.write("objects/" + String(repeating: "0", count: 64), [1, 2, 3])
        scratch.write("tmp/123-1", [9])
        let store = try ContentStore(directory: scratch.path)
        #expect(store.items["a"]?.state == .cached)
        #expect(store.recovery.tornBytes == journal.count - intact)
        #expect(store.recovery.removedOrphans == 2)
        #expect(scratch.bytes("index.journal")?.count == intact)
        #expect(FileIO_exists(scratch.path + "/tmp/123-1") == false)
    }

    @Test func aMissingOrShortObjectIsNeverServedAsComplete() throws {
        let scratch = ScratchDirectory("short")
        defer { scratch.remove() }
        let shaA: String, shaB: String
        do {
            let store = try ContentStore(directory: scratch.path)
            shaA = try store.store(Array("first file".utf8), itemID: "hls", path: "a.ts", now: 1) { $0.restore(.partiallyCached) }.sha256
            shaB = try store.store(Array("second file".utf8), itemID: "hls", path: "b.ts", now: 2) { $0.restore(.cached) }.sha256
            try store.store(Array("only".utf8), itemID: "single", path: "o", now: 3) { $0.restore(.cached) }
        }
        scratch.write("objects/\(shaB)", Array("second".utf8))   // short
        unlink(scratch.path + "/objects/" + SHA256.hex(Array("only".utf8)))   // missing
        let store = try ContentStore(directory: scratch.path)
        #expect(store.items["hls"]?.state == .partiallyCached)
        #expect(store.items["hls"]?.files.map(\.sha256) == [shaA])
        #expect(store.items["single"]?.state == .failed)
        #expect(store.items["single"]?.error == .itemCorrupted)
        #expect(store.recovery.droppedFiles == 2)
        // The repair is itself recorded: a second open agrees without repairing again.
        let again = try ContentStore(directory: scratch.path)
        #expect(again.items == store.items)
        #expect(again.recovery.droppedFiles == 0)
    }

    @Test func adoptRefusesAWrongHashOrSize() throws {
        let scratch = ScratchDirectory("adopt")
        defer { scratch.remove() }
        let store = try ContentStore(directory: scratch.path)
        let partial = store.partialPath + "/x"
        scratch.write("partial/x", Array("payload".utf8))
        let wrongSize = thrownError(ContentStoreError.self) {
            try store.adopt(partial, size: 8, itemID: "a", path: "p", now: 1) { _ in }
        }
        #expect(wrongSize?.operation == "verify")
        let wrongHash = thrownError(ContentStoreError.self) {
            try store.adopt(partial, sha256: String(repeating: "a", count: 64), itemID: "a", path: "p", now: 1) { _ in }
        }
        #expect(wrongHash?.description.contains("SHA-256") == true)
        #expect(store.items["a"] == nil)
        let file = try store.adopt(partial, sha256: SHA256.hex(Array("payload".utf8)), size: 7, itemID: "a", path: "p", now: 1) { _ in }
        #expect(file.size == 7)
    }

    @Test func compactionKeepsEveryItem() throws {
        let scratch = ScratchDirectory("compact")
        defer { scratch.remove() }
        let store = try ContentStore(directory: scratch.path)
        for round in 0..<300 {
            var item = CacheItem(id: "i\(round % 7)", source: .origin, category: "c", state: .discovered, now: Int64(round))
            item.locked = round % 2 == 0
            try store.put(item)
        }
        #expect(store.journalBytes < 10_000)   // compacted (300 records of ~160 bytes otherwise)
        let reopened = try ContentStore(directory: scratch.path)
        #expect(reopened.items == store.items)
        #expect(reopened.items.count == 7)
    }

    /// A 256 KiB tmpfs (root): filling it is ENOSPC on store; remounted read-only, open is EROFS.
    @Test func diskFullAndReadOnlyAreClearErrors() throws {
        let scratch = ScratchDirectory("full")
        defer { scratch.remove() }
        let mounted = run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", scratch.path])
        guard mounted == 0 else {
            // Only root may mount; as root (outside qemu-user) the mount must work.
            #expect(!TestEnvironment.isRoot || TestEnvironment.isQEMUUser, "mount tmpfs failed as root (status \(mounted))")
            return
        }
        defer { _ = run(["umount", "-l", scratch.path]) }
        do {
        let store = try ContentStore(directory: scratch.path + "/cache")
        try store.store([UInt8](repeating: 1, count: 100_000), itemID: "a", path: "f", now: 1) { $0.restore(.cached) }
        let full = thrownError(ContentStoreError.self) {
            try store.store([UInt8](repeating: 2, count: 300_000), itemID: "b", path: "f", now: 2) { $0.restore(.cached) }
        }
        #expect(full?.isDiskFull == true)
        #expect(full?.description.contains("disk is full") == true)
        #expect(store.items.keys.sorted() == ["a"])
        #expect(FileIO_list(scratch.path + "/cache/tmp").isEmpty)
        }
        #expect(run(["mount", "-o", "remount,ro", scratch.path]) == 0)
        let readOnly = thrownError(ContentStoreError.self) { _ = try ContentStore(directory: scratch.path + "/cache") }
        #expect(readOnly?.isReadOnly == true)
        #expect(readOnly?.description.contains("read-only") == true)
    }

    private func run(_ command: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The daemon's default cache directory sits under a state directory that may not exist yet.
    @Test func missingParentDirectoriesAreMade() throws {
        let scratch = ScratchDirectory("parents")
        defer { scratch.remove() }
        _ = try ContentStore(directory: scratch.path + "/state/deeper/cache")
        #expect(FileIO_exists(scratch.path + "/state/deeper/cache/index.journal"))
        scratch.write("state/file", [1])
        let error = thrownError(ContentStoreError.self) { _ = try ContentStore(directory: scratch.path + "/state/file/cache") }
        #expect(error?.code == ENOTDIR)
    }

    @Test func aFileInPlaceOfTheDirectoryIsAClearError() throws {
        let scratch = ScratchDirectory("notdir")
        defer { scratch.remove() }
        scratch.write("cache", [1])
        let error = thrownError(ContentStoreError.self) { _ = try ContentStore(directory: scratch.path + "/cache") }
        #expect(error?.code == ENOTDIR)
        #expect(error?.description.contains("/cache") == true)
    }
}

func FileIO_exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
func FileIO_list(_ path: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
