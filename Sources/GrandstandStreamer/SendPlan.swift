#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import ErasureCoding
import GrandstandCore
import Multicast

/// What `grandstand send` will do, resolved from its options: files read and analysed, the
/// origin address found, channel descriptions and loss models made. No packets yet.
public struct SendPlan {
    public var videos: [(spec: SendSpec.Video, stream: PacedTransportStream, fec: StreamerFEC?)] = []
    public var datas: [(spec: SendSpec.Data, messages: DataChannelSource.Messages)] = []
    public var fileChannels: [FluteSend.Channel] = []
    public var descriptions: [ChannelDescription] = []
    public var flows: [String] = []
    public let command: any SendOptions
    public let origin: IPAddress
    public let sapDestination: Endpoint
    public let options: MulticastSender.Options
    public let loss: LossModel.Rule?
    /// Loss for the FEC repair flows (`--drop-repair`), nil: repairs are never dropped.
    public let repairLoss: LossModel.Rule?

    public init(_ command: any SendOptions) throws {
        self.command = command
        guard let sapAddress = IPAddress(parsing: command.sapGroup), sapAddress.isMulticast else {
            throw SendSpec.Failure("--sap-group \"\(command.sapGroup)\" is not a multicast address")
        }
        sapDestination = Endpoint(address: sapAddress, port: SAPMessage.port)
        var source: IPAddress? = nil
        if let text = command.source {
            guard let address = IPAddress(parsing: text) else { throw SendSpec.Failure("--source \"\(text)\" is not an IP address") }
            source = address
        } else if let interface = command.interface {
            _ = try NetworkInterface.index(named: interface)   // an unknown interface fails here, before anything is sent
            source = try NetworkInterface.address(named: interface, ipv6: false)
                ?? NetworkInterface.address(named: interface, ipv6: true)
        }
        // Without either, the address routing picks toward the SAP group is the origin.
        origin = try source ?? NetworkInterface.sourceAddress(toward: sapDestination) ?? .v4(0x7F00_0001)
        // Bind only to an explicit source or the interface's IPv4 address: a link-local IPv6
        // address would need a scope id.
        options = MulticastSender.Options(interface: command.interface, ttl: command.ttl, loopback: !command.noLoopback,
                                          source: source.flatMap { $0.isIPv6 && command.source == nil ? nil : $0 })
        if let rate = command.dropRate {
            loss = .rate(rate)
        } else if let pattern = command.dropPattern {
            switch LossModel.parsePattern(pattern) {
            case .success(let rule): loss = rule
            case .failure(let error): throw SendSpec.Failure("--drop-pattern: \(error)")
            }
        } else {
            loss = nil
        }
        if let pattern = command.dropRepair {
            switch LossModel.parsePattern(pattern) {
            case .success(let rule): repairLoss = rule
            case .failure(let error): throw SendSpec.Failure("--drop-repair: \(error)")
            }
        } else {
            repairLoss = nil
        }
        let license = command.noLicense ? nil : try SendSpec.license(command.license)
        let version = UInt64(max(0, SendClock.read(CLOCK_REALTIME) / 1_000_000_000))
        var names = Set<String>()
        func uniqueFlow(_ name: String) throws -> String {
            let slug = ChannelSlug.make(name)
            guard names.insert(slug).inserted else { throw SendSpec.Failure("two channels named \"\(name)\" (\(slug))") }
            return slug
        }
        var videoSpecs = command.video.map { (spec: $0, fec: command.fec) }, dataSpecs = command.data
        if let path = command.config {
            guard let bytes = FileManager.default.contents(atPath: path) else { throw SendSpec.Failure("--config: cannot read \(path)") }
            let directory = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
            let specs = try SendConfigFile.specs(Array(bytes), directory: directory.isEmpty ? "/" : directory)
            videoSpecs += specs.video.map { (spec: $0.spec, fec: $0.fec ?? command.fec) }
            dataSpecs += specs.data
        }
        for (text, fecText) in videoSpecs {
            let spec = try SendSpec.video(text)
            var fec: StreamerFEC? = nil
            if let fecText, fecText != "none" {
                switch StreamerFEC.parse(fecText, mediaPort: spec.destination.port) {
                case .success(let parsed): fec = parsed
                case .failure(let error): throw SendSpec.Failure("--video \(spec.name): \(error)")
                }
            }
            guard let bytes = FileManager.default.contents(atPath: spec.file) else {
                throw SendSpec.Failure("--video \(spec.name): cannot read \(spec.file)")
            }
            let stream: PacedTransportStream
            do {
                stream = try PacedTransportStream(Array(bytes), fallbackBitsPerSecond: command.fallbackBitrate)
            } catch {
                throw SendSpec.Failure("--video \(spec.name): \(spec.file): \(error)")
            }
            videos.append((spec, stream, fec))
            flows.append(try uniqueFlow(spec.name))
            let kbps = Int(Int64(stream.bytes.count) * 8 * 1_000_000 / max(stream.durationNanoseconds, 1))
            descriptions.append(ChannelDescription(
                name: spec.name, information: "MPEG-TS from \(spec.file.split(separator: "/").last.map(String.init) ?? spec.file)", media: .video,
                destination: spec.destination, ttl: command.ttl, bandwidthKbps: kbps, license: license, origin: origin,
                sessionVersion: version, extraAttributes: fec.map { [$0.attribute] } ?? []))
        }
        for text in dataSpecs {
            let spec = try SendSpec.data(text)
            var messages = DataChannelSource.Messages.counter(channel: spec.name)
            if let file = spec.file {
                guard let bytes = FileManager.default.contents(atPath: file) else {
                    throw SendSpec.Failure("--data \(spec.name): cannot read \(file)")
                }
                let lines = DataChannelSource.lines(of: Array(bytes))
                guard !lines.isEmpty else { throw SendSpec.Failure("--data \(spec.name): \(file) has no messages") }
                messages = .list(lines)
            }
            datas.append((spec, messages))
            flows.append(try uniqueFlow(spec.name))
            descriptions.append(ChannelDescription(
                name: spec.name, information: spec.file == nil ? "counter every \(command.dataInterval) s" : "messages from \(spec.file ?? "")",
                media: .data(rtpPayloadType: command.dataUDP ? nil : 98), destination: spec.destination, ttl: command.ttl,
                license: license, origin: origin, sessionVersion: version))
        }
        for channel in try FluteSend.channels(command) {   // --files (Files/FluteSend.swift)
            fileChannels.append(channel)
            flows.append(try uniqueFlow(channel.name))
            descriptions.append(channel.description(ttl: command.ttl, license: license, origin: origin, version: version))
        }
    }

    /// Passes over each file: nil loops forever.
    public var passes: Int? { command.loop ? nil : (command.count ?? 1) }

    public func session(start: Int64) -> SendSession {
        let announcer = SAPAnnouncer(destination: sapDestination, origin: origin, channels: descriptions,
                                     compress: command.compress, startNanoseconds: start,
                                     intervalNanoseconds: Int64(command.sapInterval * 1e9))
        var channels: [SendSession.Channel] = []
        let session = SendSession(channels: [], announcer: announcer, options: options)
        session.scheduler.add(announcer)
        // Media starts one announcement round later (or after --lead-in), so receivers know the channels first.
        let mediaStart = start + (command.leadIn.map { Int64($0 * 1e9) } ?? min(Int64(command.sapInterval * 1e9), 500_000_000))
        var index = 0
        var repairFlows: [String] = []
        for (spec, stream, fec) in videos {
            let flow = flows[index]
            channels.append(.init(description: descriptions[index], flow: flow, fec: fec))
            if !command.announceOnly {
                let media = RTPTransportStreamSource(
                    flow: flow, destination: spec.destination, stream: stream,
                    identity: RTPIdentity(name: flow, seed: command.seed), startNanoseconds: mediaStart, passes: passes)
                if let fec {
                    session.scheduler.add(FECStreamerSource(wrapping: media, flow: flow, fec: fec, math: ISALReedSolomonMath(),
                                                            seed: command.seed))
                    repairFlows += fec.repairFlows(flow)
                } else {
                    session.scheduler.add(media)
                }
            }
            index += 1
        }
        let interval = Int64(command.dataInterval * 1e9)
        for (spec, messages) in datas {
            let flow = flows[index]
            channels.append(.init(description: descriptions[index], flow: flow, fec: nil))
            var limit: Int? = nil
            if case .list(let list) = messages, let passes { limit = list.count * passes }
            if case .counter = messages, !command.loop {
                // A counter runs alongside the video (or for --count × 10 messages without video).
                let videoDuration = videos.map { $0.stream.durationNanoseconds * Int64(passes ?? 1) }.max()
                limit = videoDuration.map { Int($0 / interval) + 1 } ?? (passes ?? 1) * 10
            }
            if !command.announceOnly {
                session.scheduler.add(DataChannelSource(
                    flow: flow, destination: spec.destination, messages: messages,
                    framing: command.dataUDP ? .udp : .rtp(payloadType: 98, identity: RTPIdentity(name: flow, seed: command.seed),
                                                           clockRate: 90_000),
                    startNanoseconds: mediaStart, intervalNanoseconds: interval, limit: limit))
            }
            index += 1
        }
        for channel in fileChannels {
            channels.append(.init(description: descriptions[index], flow: flows[index], fec: nil))
            if !command.announceOnly, let source = channel.source(flow: flows[index], start: mediaStart, passes: passes) {
                session.scheduler.add(source)
            }
            index += 1
        }
        if let loss {
            for flow in flows { session.scheduler.setLoss(LossModel.forFlow(loss, seed: command.seed, flow: flow), flow: flow) }
        }
        if let repairLoss {
            for flow in repairFlows {
                session.scheduler.setLoss(LossModel.forFlow(repairLoss, seed: command.seed, flow: flow), flow: flow)
            }
        }
        session.channels = channels
        return session
    }

    /// What is about to happen, one line per channel.
    public var banner: [String] {
        var lines = ["sending from \(origin)\(command.interface.map { " on \($0)" } ?? ""); SAP to \(sapDestination) every \(command.sapInterval) s"
                     + (command.compress ? " (compressed)" : "")]
        for (index, (description, flow)) in zip(descriptions, flows).enumerated() {
            lines.append("  \(flow): \"\(description.name)\" → \(description.destination)"
                         + (description.bandwidthKbps.map { " (\($0) kbit/s)" } ?? "")
                         + (index < videos.count ? videos[index].fec.map { ", FEC \($0.summary)" } ?? "" : ""))
        }
        let passText = passes.map { "\($0) pass\($0 == 1 ? "" : "es")" } ?? "looping"
        var lossText = ""
        switch loss {
        case .rate(let p)?: lossText = ", dropping \(p * 100)% of each channel's packets (seed \(command.seed))"
        case .every(let n)?: lossText = ", dropping every \(n)th packet of each channel"
        case .indices?: lossText = ", dropping packets \(command.dropPattern ?? "") of each channel"
        case nil: break
        }
        if let pattern = command.dropRepair { lossText += ", dropping repair packets \(pattern) of each repair flow" }
        lines.append(command.announceOnly ? "announce only" : passText + lossText)
        return lines
    }

    public init(videos: [(spec: SendSpec.Video, stream: PacedTransportStream, fec: StreamerFEC?)] = [], datas: [(spec: SendSpec.Data, messages: DataChannelSource.Messages)] = [], fileChannels: [FluteSend.Channel] = [], descriptions: [ChannelDescription] = [], flows: [String] = [], command: any SendOptions, origin: IPAddress, sapDestination: Endpoint, options: MulticastSender.Options, loss: LossModel.Rule? = nil, repairLoss: LossModel.Rule? = nil) {
        self.videos = videos
        self.datas = datas
        self.fileChannels = fileChannels
        self.descriptions = descriptions
        self.flows = flows
        self.command = command
        self.origin = origin
        self.sapDestination = sapDestination
        self.options = options
        self.loss = loss
        self.repairLoss = repairLoss
    }
}
