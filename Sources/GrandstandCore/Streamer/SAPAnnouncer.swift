/// Announces channels with SAP (RFC 2974): every `interval`, one packet per channel, spread
/// evenly over the interval (the first round at once); optionally zlib-compressed (C bit). `deletions` gives the T-bit
/// packets to send on exit. A background source: it never ends a run by itself.
public struct SAPAnnouncer: StreamerSource {
    public static let defaultGroupV4 = IPAddress.v4(0xEFFF_FFFF)   // 239.255.255.255, admin scope (§3)

    public let flow: String
    public let destination: Endpoint
    public let origin: IPAddress
    public let channels: [ChannelDescription]
    public let compress: Bool
    public let startNanoseconds: Int64
    public let intervalNanoseconds: Int64
    /// The announcement packets, one per channel, built once.
    public let packets: [[UInt8]]
    public private(set) var sent = 0

    public init(flow: String = "sap", destination: Endpoint, origin: IPAddress, channels: [ChannelDescription],
                compress: Bool, startNanoseconds: Int64, intervalNanoseconds: Int64) {
        self.flow = flow
        self.destination = destination
        self.origin = origin
        self.channels = channels
        self.compress = compress
        self.startNanoseconds = startNanoseconds
        self.intervalNanoseconds = max(intervalNanoseconds, 1)
        packets = channels.map { SAPAnnouncer.packet(for: $0, origin: origin, kind: .announcement, compress: compress) }
    }

    public var isBackground: Bool { true }

    public var nextDueNanoseconds: Int64? {
        guard !channels.isEmpty else { return nil }
        let round = Int64(sent / channels.count), slot = Int64(sent % channels.count)
        // The first round goes out at once (10 ms apart) so receivers learn every channel before
        // its media; later rounds are spread over the interval.
        let spacing = round == 0 ? min(intervalNanoseconds / Int64(channels.count), 10_000_000)
                                 : intervalNanoseconds / Int64(channels.count)
        return startNanoseconds + round * intervalNanoseconds + slot * spacing
    }

    public mutating func pop() -> [ScheduledDatagram] {
        guard let due = nextDueNanoseconds else { return [] }
        let packet = packets[sent % channels.count]
        sent += 1
        return [ScheduledDatagram(flow: flow, destination: destination, payload: packet, dueNanoseconds: due)]
    }

    /// One deletion per channel (T bit, the announcement's message id hash, the `o=` line).
    public func deletions(dueNanoseconds: Int64) -> [ScheduledDatagram] {
        channels.map {
            ScheduledDatagram(flow: flow, destination: destination,
                              payload: SAPAnnouncer.packet(for: $0, origin: origin, kind: .deletion, compress: compress),
                              dueNanoseconds: dueNanoseconds)
        }
    }

    /// The message id hash identifies this version of the SDP (§3): FNV-1a of the text, folded
    /// to 16 bits, never 0.
    public static func messageIDHash(_ sdp: String) -> UInt16 {
        let hash = FNV.hash32(Array(sdp.utf8))
        let folded = UInt16(truncatingIfNeeded: hash >> 16) ^ UInt16(truncatingIfNeeded: hash)
        return folded == 0 ? 1 : folded
    }

    public static func packet(for channel: ChannelDescription, origin: IPAddress, kind: SAPMessage.Kind,
                              compress: Bool) -> [UInt8] {
        let sdp = channel.sdp
        let hash = messageIDHash(sdp)
        let text = kind == .deletion ? channel.originLine + "\r\n" : sdp
        let mimeType = "application/sdp"
        guard compress else {
            return SAPMessage.encode(kind: kind, origin: origin, messageIDHash: hash, payloadType: mimeType,
                                     payload: Array(text.utf8))
        }
        // With C set the payload type is compressed too (§3: everything after the auth data).
        var plain = Array(mimeType.utf8)
        plain.append(0)
        plain.append(contentsOf: text.utf8)
        return SAPMessage.encode(kind: kind, origin: origin, messageIDHash: hash, payload: Deflate.zlib(plain),
                                 compressed: true)
    }
}
