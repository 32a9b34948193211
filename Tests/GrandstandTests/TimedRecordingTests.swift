import Testing
import GrandstandCore
import GrandstandOperations

/// `TimedRecording` (the demo's "kick-off") against scripted daemon answers: an answer lost to a
/// timeout must never leave the recording running, the flake that kept the fan tour's
/// "Recordings" list empty under load.
struct TimedRecordingTests {
    /// What the daemon does with each request in turn: answer 2xx, refuse with a status, or time out.
    enum Answer { case ok, refused(Int), timeout }

    final class Daemon {
        var script: [Answer]
        var sent: [String] = []
        init(_ script: [Answer]) { self.script = script }
        func call(_ target: String, _ body: [UInt8]) throws(ManagementClientError) {
            sent.append(target)
            switch script.isEmpty ? .ok : script.removeFirst() {
            case .ok: return
            case .refused(let status): throw ManagementClientError("HTTP \(status)", exitCode: 1, status: status)
            case .timeout: throw ManagementClientError("no answer", exitCode: 75)
            }
        }
    }

    /// Steps every 250 ms for `seconds` (a manual clock); returns the phase at the end.
    static func run(_ daemon: Daemon, seconds: Double = 30) -> TimedRecording {
        var recording = TimedRecording(name: "kick-off", channel: "main-camera", seconds: 20)
        var now: Int64 = 1_000_000_000
        while Double(now) / 1e9 < seconds + 1 {
            recording.step(now: now, call: daemon.call)
            now += 250_000_000
        }
        return recording
    }

    static let start = "/api/v1/records", stop = "/api/v1/records/stop"

    @Test(arguments: [
        // Plain: started, stopped 20 s later.
        ([Answer.ok, .ok], [start, stop]),
        // The channel is not live yet (404) twice, then it is.
        ([.refused(404), .refused(404), .ok, .ok], [start, start, start, stop]),
        // The start's 201 was lost: the retry is answered 409 (the name exists), taken as started.
        ([.timeout, .refused(409), .ok], [start, start, stop]),
        // The stop's answer was lost: it is sent again until answered.
        ([.ok, .timeout, .timeout, .ok], [start, stop, stop, stop]),
    ])
    func everyScriptEndsStopped(script: [Answer], sent: [String]) {
        let daemon = Daemon(script)
        let recording = Self.run(daemon)
        #expect(recording.phase == .stopped)
        #expect(daemon.sent == sent)
    }

    @Test func aStopRefusedForGoodIsAbandonedNotRetried() {
        let daemon = Daemon([.ok, .refused(404)])
        let recording = Self.run(daemon)
        #expect(recording.phase == .abandoned("HTTP 404"))
        #expect(daemon.sent == [Self.start, Self.stop])
    }

    @Test func theStopWaitsForTheRecordingsTime() {
        let daemon = Daemon([.ok])
        let recording = Self.run(daemon, seconds: 15)
        #expect(recording.phase == .recording(sinceNanoseconds: 1_000_000_000))
        #expect(daemon.sent == [Self.start])
    }
}
