import Dispatch
import GrandstandRuntime
import Synchronization
import Testing
@testable import GrandstandIngest

/// The hand-off of file channels' datagrams from the capture thread to the `files` thread
/// (FileDeliveryQueue): the capture side never waits for a slow delivery, order is kept, a full
/// queue drops and counts, stopping ends the drain.
@Suite struct FileDeliveryQueueTests {
    static func datagram(_ id: String, _ byte: UInt8, size: Int = 100) -> FileDeliveryQueue.Datagram {
        FileDeliveryQueue.Datagram(channelID: id, payload: [UInt8](repeating: byte, count: size), timestampNanoseconds: Int64(byte))
    }

    @Test func withoutADrainingThreadTheCallerDelivers() {
        let queue = FileDeliveryQueue()
        #expect(queue.put(Self.datagram("c", 1)) == .notRunning)
        #expect(queue.queuedBytes == 0 && queue.dropped("c") == 0)
    }

    /// A delivery that blocks (a bundle's completion) does not block `put`: datagrams queue up to
    /// the limit, the rest are dropped and counted; once the delivery goes on, every queued one
    /// arrives in order.
    @Test func aSlowDeliveryQueuesThenDropsButNeverBlocksTheCaller() throws {
        let queue = FileDeliveryQueue(limitBytes: 1_000)
        let release = DispatchSemaphore(value: 0), first = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let delivered = Mutex<[UInt8]>([])
        let stop = StopSignal()
        queue.attach(stop)
        let thread = try ServiceThread(name: "files-test", stop: stop) { stop in
            queue.drain(stop) { datagram in
                delivered.withLock { $0.append(datagram.payload[0]) }
                if datagram.payload[0] == 0 { first.signal(); release.wait() }
                if datagram.payload[0] == 10 { done.signal() }
            }
        }
        defer { thread.stop() }
        #expect(queue.put(Self.datagram("c", 0)) == .queued)
        #expect(first.wait(timeout: .now() + 10) == .success)
        // Held in delivery: ten 100-byte datagrams fill the 1,000-byte queue, the next ones drop.
        let placements = (1...13).map { queue.put(Self.datagram("c", UInt8($0))) }
        #expect(placements.prefix(10).allSatisfy { $0 == .queued })
        #expect(placements.suffix(3).allSatisfy { $0 == .dropped })
        #expect(queue.dropped("c") == 3 && queue.dropped("other") == 0)
        #expect(queue.queuedBytes == 1_000)
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(delivered.withLock { $0 } == Array(0...10))
    }

    /// One capture read's datagrams go in under one lock with one wake of the draining thread
    /// (not one a datagram); what does not fit is dropped and counted.
    @Test func aBatchWakesTheDrainOnceAndDropsWhatDoesNotFit() {
        let queue = FileDeliveryQueue(limitBytes: 1_000)
        let stop = StopSignal()
        queue.attach(stop)
        let before = stop.generation
        #expect(queue.put((1...8).map { Self.datagram("c", UInt8($0)) }) == .queued)
        #expect(stop.generation == before + 1)
        #expect(queue.put((9...12).map { Self.datagram("d", UInt8($0)) }) == .dropped)
        #expect(stop.generation == before + 1, "a non-empty queue needs no second wake")
        #expect(queue.queuedBytes == 1_000 && queue.dropped("d") == 2 && queue.dropped("c") == 0)
    }

    @Test func stoppingEndsTheDrain() throws {
        let queue = FileDeliveryQueue()
        let thread = try ServiceThread(name: "files-test") { stop in queue.drain(stop) { _ in } }
        thread.stop()
        #expect(queue.put(Self.datagram("c", 1)) == .notRunning)
    }
}
