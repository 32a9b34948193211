// cache-killtest: the writer half of the cache's crash-safety proof (docs/cache.md). It opens
// (and so recovers) a ContentStore and changes it forever, announcing each step on stdout with
// unbuffered writes: `storing ID SHA N` before and `committed ID` after a durable store, `removing
// ID` before and `removed ID` after a removal. ContentCacheTests SIGKILLs it at random moments and
// checks the store after each restart against these lines.
//
// Usage: cache-killtest write DIR SEED
import ContentStore
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// xorshift64*: deterministic content from a seed.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "write", let seed = UInt64(arguments[3]) else {
    say("usage: cache-killtest write DIR SEED")
    exit(2)
}
let store: ContentStore
do {
    store = try ContentStore(directory: arguments[2])
} catch {
    say("error \(error)")
    exit(1)
}
say("ready items=\(store.items.count) torn=\(store.recovery.tornBytes) dropped=\(store.recovery.droppedFiles) orphans=\(store.recovery.removedOrphans)")
var random = Random(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
var counter = 0
let fileCount = 3
while true {
    counter += 1
    let now = Int64(counter)
    let choice = random.below(10)
    do {
        if choice < 2, let victim = store.items.keys.sorted().first(where: { _ in random.below(3) == 0 }) {
            say("removing \(victim)")
            try store.remove(victim)
            say("removed \(victim)")
            continue
        }
        // A multi-file item (like an HLS VOD): partially cached until its last file lands.
        let id = "s\(seed)-\(counter)"
        for index in 0..<fileCount {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + random.below(2048)) { withUnsafeBytes(of: random.next()) { bytes.append(contentsOf: $0) } }
            say("storing \(id) \(SHA256.hex(bytes)) \(index)")
            try store.store(bytes, itemID: id, path: "file\(index).bin", now: now) { item in
                item.category = "multi\(fileCount)"
                item.restore(index == fileCount - 1 ? .cached : .partiallyCached)
            }
        }
        say("committed \(id)")
    } catch {
        say("error \(error)")
        exit(1)
    }
}
