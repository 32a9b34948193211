import SRT
import Testing

/// The SRT adapter against itself over loopback: a listener and a caller in live mode, with and
/// without a passphrase (draft-sharabayko-srt, "Caller-Listener Handshake", "Encryption").
/// Every wait is on a socket event with a deadline, never a sleep.
@Suite struct SRTSocketTests {
    static let passphrase = "venue-backup-feed"

    /// A listener on an ephemeral loopback port.
    static func listener(_ settings: SRTSettings) throws -> (SRTSocket, UInt16) {
        let listener = try SRTSocket(settings: settings)
        try listener.listen(try SRTAddress.resolve(host: "127.0.0.1", port: 0))
        let port = listener.localPort
        #expect(port != 0)
        return (listener, port)
    }

    /// Drives a caller's handshake while accepting on `listener`; the accepted socket, if any.
    static func connect(_ caller: SRTSocket, to listener: SRTSocket, port: UInt16) throws -> SRTSocket? {
        try caller.connect(try SRTAddress.resolve(host: "127.0.0.1", port: port))
        var accepted: SRTSocket?
        for _ in 0..<50 where accepted == nil || !caller.isConnected {
            if accepted == nil, try listener.wait(timeoutMilliseconds: 20) { accepted = try listener.accept()?.socket }
            _ = try caller.waitConnected(timeoutMilliseconds: 20)
        }
        return accepted
    }

    @Test func encryptedMessagesArriveWholeAndInOrder() throws {
        let settings = SRTSettings(latencyMilliseconds: 40, passphrase: Self.passphrase, keyLength: 32)
        let (listener, port) = try Self.listener(settings)
        let caller = try SRTSocket(settings: settings)
        let accepted = try #require(try Self.connect(caller, to: listener, port: port))
        #expect(caller.isConnected)
        let sent = (0..<20).map { index in [UInt8](repeating: UInt8(index), count: 1316) }
        for message in sent { #expect(try caller.send(message[...])) }
        var received: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: SRTSocket.maximumPayload)
        for _ in 0..<100 where received.count < sent.count {
            guard try accepted.wait(timeoutMilliseconds: 50) else { continue }
            while let count = try accepted.receive(into: &buffer) { received.append(Array(buffer[..<count])) }
        }
        #expect(received == sent)
        let statistics = try accepted.statistics()
        #expect(statistics.packetsReceived >= 20)
        #expect(statistics.packetsUndecrypted == 0)
        #expect(statistics.latencyMilliseconds >= 40)
    }

    @Test func aWrongPassphraseIsRefusedWithItsReasonOnBothSides() throws {
        var log = SRTLibrary.RejectionLog()
        let (listener, port) = try Self.listener(SRTSettings(passphrase: Self.passphrase))
        let caller = try SRTSocket(settings: SRTSettings(passphrase: "not-the-venue-secret"))
        var refusal: SRTError?
        do {
            _ = try Self.connect(caller, to: listener, port: port)
        } catch {
            refusal = error as? SRTError
        }
        #expect(refusal?.rejectReason?.isWrongPassphrase == true, "\(String(describing: refusal))")
        #expect(!caller.isConnected)
        // The listener's side only libsrt's log tells; the gate knows the caller's socket id.
        let lines = log.next().filter { line in line.socket.map(listener.sawCaller) == true }
        #expect(lines.contains { $0.text.contains("BADSECRET") }, "\(lines)")
    }

    @Test func anUnencryptedCallerIsRefusedByAnEncryptedListener() throws {
        let (listener, port) = try Self.listener(SRTSettings(passphrase: Self.passphrase))
        let caller = try SRTSocket(settings: SRTSettings())
        #expect { _ = try Self.connect(caller, to: listener, port: port) } throws: { error in
            (error as? SRTError)?.rejectReason?.isEncryptionMismatch == true
        }
    }

    @Test func aBusyListenerRefusesASecondCaller() throws {
        let (listener, port) = try Self.listener(SRTSettings())
        let first = try SRTSocket(settings: SRTSettings())
        let accepted = try Self.connect(first, to: listener, port: port)
        #expect(accepted != nil && first.isConnected)
        listener.busy = true
        let second = try SRTSocket(settings: SRTSettings())
        #expect { _ = try Self.connect(second, to: listener, port: port) } throws: { error in
            (error as? SRTError)?.rejectReason?.isOverload == true
        }
        #expect(listener.refusedPeers == 1)
    }

    @Test func anUnknownHostIsAnErrorNotATrap() {
        #expect(throws: SRTError.self) { _ = try SRTAddress.resolve(host: "no-such-host.invalid", port: 9000) }
    }

    @Test func theLinkedLibraryStarts() {
        #expect(SRTLibrary.start())
        #expect(SRTLibrary.version.hasPrefix("1."))
    }
}
