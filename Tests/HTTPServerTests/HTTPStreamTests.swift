import Foundation
import Testing
@testable import HTTPServer

/// Streaming responses (HTTPStream): chunks arrive as they are sent, the connection is
/// suspended in between (no thread, no busy loop), a client that stops reading costs a bounded
/// queue (oldest dropped, counted), a client that leaves is noticed, `finish` ends the body.
@Suite(.serialized) struct HTTPStreamTests {
    /// The streams the handler opened, for the test to write to.
    final class Opened: @unchecked Sendable {
        let lock = NSLock()
        var streams: [HTTPStream] = []
        func add(_ s: HTTPStream) { lock.lock(); streams.append(s); lock.unlock() }
        var last: HTTPStream? { lock.lock(); defer { lock.unlock() }; return streams.last }
        var count: Int { lock.lock(); defer { lock.unlock() }; return streams.count }
    }

    static func start(_ opened: Opened, limits: HTTPStream.Limits = HTTPStream.Limits()) throws -> any HTTPListener {
        try EventLoopServer(HTTPListenerConfiguration(host: "127.0.0.1", port: 0)) { request in
            guard request.path == "/events" else { return .text(200, "plain") }
            let stream = HTTPStream(limits: limits)
            opened.add(stream)
            return .stream(stream, headers: [("Content-Type", "text/event-stream")])
        }
    }

    static func open(_ server: any HTTPListener, _ opened: Opened) throws -> (RawSocket, HTTPStream) {
        let before = opened.count
        let socket = try RawSocket(port: server.port, timeout: 5)
        socket.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        try waitUntil { opened.count > before }
        return (socket, try #require(opened.last))
    }

    @Test func chunksArriveAsSentAndFinishEndsTheBody() throws {
        let opened = Opened()
        let server = try Self.start(opened)
        defer { server.stop() }
        let (socket, stream) = try Self.open(server, opened)
        #expect(stream.send(Array("data: one\n\n".utf8)))
        let head = String(decoding: socket.read(until: "data: one"), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))
        #expect(head.lowercased().contains("content-type: text/event-stream"))
        // Nothing to send for a while: the listener is free for others meanwhile.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(HTTPLimitsTests.get(server, "/plain") == 200)
        let sentAt = Date()
        stream.send(Array("data: two\n\n".utf8))
        _ = socket.read(until: "data: two")
        #expect(Date().timeIntervalSince(sentAt) < 0.2)
        #expect(server.statistics.streams == 1)
        stream.finish()
        let (rest, closed) = socket.readAll()
        #expect(String(decoding: rest, as: UTF8.self).hasSuffix("0\r\n\r\n") || closed)
        // The registry forgets the stream in its close callback, just after `isOpen` turns false.
        try waitUntil { !stream.isOpen && server.statistics.streams == 0 }
        #expect(!stream.send(Array("late".utf8)))
    }

    @Test func aClientThatStopsReadingCostsABoundedQueue() throws {
        let opened = Opened()
        var limits = HTTPStream.Limits()
        limits.maxQueuedBytes = 64 * 1024
        limits.maxQueuedChunks = 64
        let server = try Self.start(opened, limits: limits)
        defer { server.stop() }
        let (socket, stream) = try Self.open(server, opened)
        var small = Int32(4096)
        setsockopt(socket.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let before = residentBytes()
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1024)
        var peak = 0
        for _ in 0..<20_000 {
            #expect(stream.send(chunk))
            peak = max(peak, stream.queuedBytes)
        }
        let grown = residentBytes() - before
        // The process's RSS is only printed: the suite's other tests allocate beside this one
        // (under qemu-user it once grew 8.5 MiB). The bound is the stream's own queue.
        print("slow stream reader: 20 MB sent, \(stream.droppedChunks) chunks dropped, queue peak \(peak) B, RSS +\(grown / 1024) KiB")
        #expect(stream.droppedChunks > 15_000)
        #expect(peak <= limits.maxQueuedBytes + chunk.count, "queue peak \(peak) B")
        #expect(server.statistics.streamChunksDropped == stream.droppedChunks)
        #expect(HTTPLimitsTests.get(server, "/plain") == 200)
    }

    @Test func aClientThatLeavesIsNoticedAndItsStreamCloses() throws {
        let opened = Opened()
        var limits = HTTPStream.Limits()
        limits.heartbeat = Array(": keepalive\n\n".utf8)
        limits.heartbeatSeconds = 1
        let server = try Self.start(opened, limits: limits)
        defer { server.stop() }
        let closedFlag = Opened()
        var (socket, stream) = try Self.open(server, opened)
        stream.onClose { closedFlag.add(HTTPStream()) }
        // Idle: the heartbeat arrives about once a second.
        let started = Date()
        _ = socket.read(until: ": keepalive")
        #expect(Date().timeIntervalSince(started) < 2.5)
        // The client leaves while its connection is suspended: the next heartbeat finds out.
        socket = try RawSocket(port: server.port)
        // The close callback runs after `isOpen` turns false (outside the stream's lock): wait
        // for the callback itself, the event this checks, not for the flag before it.
        try waitUntil(timeout: 5) { closedFlag.count == 1 && server.statistics.streams == 0 }
        #expect(!stream.isOpen)
        _ = socket
    }

    @Test func stoppingTheServerEndsOpenStreams() throws {
        let opened = Opened()
        let server = try Self.start(opened)
        let (socket, stream) = try Self.open(server, opened)
        stream.send(Array("data: x\n\n".utf8))
        _ = socket.read(until: "data: x")
        let started = Date()
        server.stop()
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(!stream.isOpen)
        #expect(socket.readAll().closed)
    }
}
