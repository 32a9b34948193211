#if canImport(Glibc)
import Glibc
#endif
import GrandstandCore
import Multicast

/// One run of `grandstand send`: the scheduler with every channel's sources, the sockets, the
/// real-time loop and the exit summary. Built by SendCommand from validated options.
public final class SendSession {
    struct Channel {
        var description: ChannelDescription
        var flow: String
        /// The channel's FEC (video channels with `--fec`), whose repair flows get summary lines.
        var fec: StreamerFEC?
    }

    struct FlowTally {
        var sent = 0
        var bytes = 0
        var errors = 0
    }

    var scheduler = StreamerScheduler()
    var announcer: SAPAnnouncer
    /// `--impair` faults between the scheduler and the sockets (SendImpairment.swift).
    public var impairment: SendImpairment?
    var channels: [Channel]
    let options: MulticastSender.Options
    private var senders: [Bool: MulticastSender] = [:]
    private(set) var tallies: [String: FlowTally] = [:]
    /// How late datagrams left relative to their due time (pacing accuracy).
    private(set) var latenessTotal: Int64 = 0
    private(set) var latenessWorst: Int64 = 0
    private(set) var latenessCount = 0

    init(channels: [Channel], announcer: SAPAnnouncer, options: MulticastSender.Options) {
        self.channels = channels
        self.announcer = announcer
        self.options = options
    }

    /// The socket for a destination's family, opened on first use.
    func sender(ipv6: Bool) throws(MulticastError) -> MulticastSender {
        if let sender = senders[ipv6] { return sender }
        var familyOptions = options
        if let source = options.source, source.isIPv6 != ipv6 { familyOptions.source = nil }
        let sender = try MulticastSender(ipv6: ipv6, options: familyOptions)
        senders[ipv6] = sender
        return sender
    }

    /// Opens the sockets every destination needs, so configuration errors stop the run before
    /// anything is sent.
    public func openSockets() throws(MulticastError) {
        let families = Set(channels.map { $0.description.destination.address.isIPv6 } + [announcer.destination.address.isIPv6])
        for ipv6 in families.sorted(by: { !$0 && $1 }) { _ = try sender(ipv6: ipv6) }
    }

    /// Sends one datagram; transient buffer shortages are counted, anything else is fatal.
    func send(_ datagram: ScheduledDatagram, now: Int64) throws(MulticastError) {
        var tally = tallies[datagram.flow] ?? FlowTally()
        defer { tallies[datagram.flow] = tally }
        do throws(MulticastError) {
            try sender(ipv6: datagram.destination.address.isIPv6).send(datagram.payload, to: datagram.destination)
            tally.sent += 1
            tally.bytes += datagram.payload.count
            let late = max(0, now - datagram.dueNanoseconds)
            latenessTotal += late
            latenessWorst = max(latenessWorst, late)
            latenessCount += 1
        } catch {
            guard error.code == ENOBUFS || error.code == EAGAIN else { throw error }
            tally.errors += 1
        }
    }

    /// Runs until the foreground sources are done (unless `untilSignal`), `stopAt`, or a signal.
    /// Returns true when stopped by a signal.
    public func run(clock: inout SendClock, stopAt: Int64?, untilSignal: Bool) throws(MulticastError) -> Bool {
        while true {
            let now = clock.now
            var due = scheduler.popDue(nowNanoseconds: now)
            if var faults = impairment { due = faults.process(due, now: now); impairment = faults }
            for datagram in due {
                try send(datagram, now: clock.now)
            }
            // Done once what the faults hold back is out too: drained later (after the caller's FEC
            // drain) it arrived past the receivers' repair timeout, a loss and lateness of our own.
            if !untilSignal && scheduler.isFinished && impairment?.nextDueNanoseconds == nil { return false }
            if let stopAt, clock.now >= stopAt { return false }
            var deadline = min(scheduler.nextDueNanoseconds ?? Int64.max, impairment?.nextDueNanoseconds ?? Int64.max)
            if let stopAt { deadline = min(deadline, stopAt) }
            // Wake at least every 250 ms so a stuck clock cannot hide a signal for long.
            deadline = min(deadline, clock.now + 250_000_000)
            if clock.wait(until: deadline) { return true }
        }
    }

    /// SAP deletions for every channel, sent at once (twice, against a single loss).
    public func sendDeletions(now: Int64) {
        for datagram in impairment?.drain() ?? [] { try? send(datagram, now: now) }
        for _ in 0..<2 {
            for datagram in announcer.deletions(dueNanoseconds: now) {
                try? send(datagram, now: now)
            }
        }
    }

    /// One line per channel plus SAP and pacing.
    public func summary() -> [String] {
        var lines: [String] = []
        for channel in channels {
            let tally = tallies[channel.flow] ?? FlowTally()
            let dropped = scheduler.counters[channel.flow]?.dropped ?? 0
            var line = "\(channel.flow): \(kindName(channel.description.media)) \(channel.description.destination): "
                + "\(tally.sent) packets sent (\(SendSession.megabytes(tally.bytes))), \(dropped) dropped"
            if tally.errors > 0 { line += ", \(tally.errors) send errors" }
            lines.append(line)
            guard let fec = channel.fec else { continue }
            for (repairFlow, port) in zip(fec.repairFlows(channel.flow), fec.repairPorts(mediaPort: channel.description.destination.port)) {
                let repair = tallies[repairFlow] ?? FlowTally()
                let repairDropped = scheduler.counters[repairFlow]?.dropped ?? 0
                lines.append("\(repairFlow): FEC repair port \(port): \(repair.sent) packets sent (\(SendSession.megabytes(repair.bytes))), "
                             + "\(repairDropped) dropped")
            }
        }
        let sap = tallies[announcer.flow] ?? FlowTally()
        lines.append("sap: \(announcer.destination): \(sap.sent) packets sent (announcements and deletions)")
        if latenessCount > 0 {
            lines.append("pacing: \(latenessCount) packets, late by \(latenessTotal / Int64(latenessCount) / 1000) µs mean, "
                         + "\(latenessWorst / 1000) µs worst")
        }
        return lines
    }

    private func kindName(_ media: ChannelDescription.Media) -> String {
        switch media {
        case .video: return "video"
        case .data(let type): return type == nil ? "data (udp)" : "data (rtp)"
        case .file: return "file"
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + 524_288) / 1_048_576
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
