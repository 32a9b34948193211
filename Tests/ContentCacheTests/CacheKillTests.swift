import ContentStore
import Foundation
import GrandstandCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The crash-safety proof (docs/cache.md): `cache-killtest` changes a store until SIGKILLed at a
/// random moment, 60 times in a row on one directory (20 under qemu-user, where the emulated
/// writer's start and the store's replay cost ~10× more and the file system under test is still
/// the host kernel's: the 60 run on the host, `make test`); after each kill the store must reopen
/// consistent — every committed item present with verifying bytes, every removed item gone,
/// nothing `cached` that is not whole, no orphan objects.
@Suite struct CacheKillTests {
    @Test(.timeLimit(.minutes(20)))
    func killedAtRandomPointsTheStoreStaysConsistent() throws {
        let scratch = ScratchDirectory("kill")
        defer { scratch.remove() }
        let kills = TestEnvironment.isQEMUUser ? 20 : 60
        var committed: [String: [String]] = [:]   // id → file hashes, for items whose commit was announced
        var removed = Set<String>()
        var inFlight = Set<String>()              // announced but unconfirmed: either outcome is fine
        var midOperation = 0, torn = 0, dropped = 0, orphans = 0, totalLines = 0
        var random = SystemRandomNumberGenerator()
        for round in 0..<kills {
            let writer = Process()
            // Under qemu-user the arm64 writer runs through the emulator (which SIGKILL ends just the same).
            let command = builtProgram("cache-killtest") + ["write", scratch.path, String(round + 1)]
            writer.executableURL = URL(fileURLWithPath: command[0])
            writer.arguments = Array(command.dropFirst())
            let pipe = Pipe()
            writer.standardOutput = pipe
            try writer.run()
            var early = Data()
            if round % 6 == 5 {
                // Every sixth round waits for a commit first, so commits are checked however slow
                // the machine (qemu-user under load), then kills a little later.
                while !String(decoding: early, as: UTF8.self).contains("committed ") {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    early.append(chunk)
                }
            }
            let delay = UInt32.random(in: 20_000...(TestEnvironment.isQEMUUser ? 1_500_000 : 400_000), using: &random)
            usleep(delay)
            kill(writer.processIdentifier, SIGKILL)
            early.append(pipe.fileHandleForReading.readDataToEndOfFile())
            let output = String(decoding: early, as: UTF8.self)
            writer.waitUntilExit()
            #expect(writer.terminationReason == .uncaughtSignal, "round \(round): the writer ended by itself: \(output)")
            var pending: [String: [String]] = [:]
            var lastLine = ""
            for line in output.split(separator: "\n") {
                totalLines += 1
                lastLine = String(line)
                let words = line.split(separator: " ").map(String.init)
                switch words.first {
                case "storing":
                    pending[words[1], default: []].append(words[2])
                    inFlight.insert(words[1])
                case "committed":
                    committed[words[1]] = pending[words[1]]
                    inFlight.remove(words[1])
                case "removing": inFlight.insert(words[1])
                case "removed":
                    committed[words[1]] = nil
                    removed.insert(words[1])
                    inFlight.remove(words[1])
                case "error": Issue.record("round \(round): \(line)")
                default: break
                }
            }
            if lastLine.hasPrefix("storing") || lastLine.hasPrefix("removing") { midOperation += 1 }

            let store = try ContentStore(directory: scratch.path)
            torn += store.recovery.tornBytes > 0 ? 1 : 0
            dropped += store.recovery.droppedFiles
            orphans += store.recovery.removedOrphans
            #expect(store.verify().isEmpty, "round \(round): bytes that do not match their record")
            for (id, hashes) in committed where !inFlight.contains(id) {
                let item = store.items[id]
                #expect(item?.state == .cached, "round \(round): committed item \(id) is \(item?.state.rawValue ?? "lost")")
                #expect(item?.files.map(\.sha256) == hashes, "round \(round): \(id) has other bytes than committed")
            }
            for id in removed where !inFlight.contains(id) { #expect(store.items[id] == nil, "round \(round): removed \(id) is back") }
            for item in store.items.values where item.state == .cached {
                #expect(item.files.count == 3, "round \(round): \(item.id) is cached with \(item.files.count) of 3 files")
            }
            let objects = Set((try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/objects")) ?? [])
            let referenced = Set(store.items.values.flatMap { $0.files.map(\.sha256) })
            #expect(objects == referenced, "round \(round): objects on disk differ from those the index names")
            // Items this round left half-stored stay partially cached; the next writer adds new ones.
            for id in inFlight where store.items[id] == nil { committed[id] = nil }
            inFlight.removeAll()
        }
        print("cache kill test: \(kills) kills, \(midOperation) mid-operation, \(torn) torn journal tails, " +
              "\(dropped) dropped files, \(orphans) orphans removed, \(committed.count) committed items, \(totalLines) lines")
        #expect(committed.count > 0, "the writer never committed an item: kill delays too short for this machine")
    }
}
