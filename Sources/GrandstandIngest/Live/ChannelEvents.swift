import GrandstandCore

/// journald events for channel-list changes (docs/logging.md).
enum ChannelEvents {
    static func event(for change: ChannelChange) -> GatewayEvent {
        let channel = change.channel
        var fields: [(name: String, value: String)] = [
            ("CHANNEL", channel.id), ("KIND", channel.kind.name), ("GROUP", channel.group?.description ?? ""),
            ("PORT", String(channel.port)), ("STREAMER", channel.streamer?.description ?? "config"),
        ]
        var place = channel.srt?.description ?? "\(channel.group?.description ?? "?"):\(channel.port)"
        if let multiplex = channel.multiplex, let number = channel.programNumber {
            // A program split out of a multiplex (docs/ingest.md, "Multi-program TS").
            fields += [("MULTIPLEX", multiplex), ("PROGRAM_NUMBER", String(number))]
            place = "program \(number) of \(multiplex) at \(place)"
        }
        switch change {
        case .added:
            return GatewayEvent(.channelAdded, "channel \(channel.id) (\(channel.name), \(channel.kind)) added at \(place)", fields: fields)
        case .updated where channel.kind == .multiplex:
            fields.append(("PROGRAMS", channel.programChannels.joined(separator: ",")))
            return GatewayEvent(.channelUpdated, "channel \(channel.id) is a multiplex of \(channel.programChannels.count) programs: "
                                + channel.programChannels.joined(separator: ", "), fields: fields)
        case .updated:
            return GatewayEvent(.channelUpdated, "channel \(channel.id) updated to session version \(channel.sessionVersion ?? "?")",
                                fields: fields)
        case .removed(_, let reason):
            fields.append(("REASON", reason.rawValue))
            return GatewayEvent(.channelRemoved, "channel \(channel.id) removed (\(reason.rawValue))", fields: fields)
        }
    }
}
