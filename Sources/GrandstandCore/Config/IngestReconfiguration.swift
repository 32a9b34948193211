/// Applying new ingest settings (license, streamers, channels, discovery, fec) without a restart:
/// the daemon starts a new pipeline and retires from what it serves only the channels the new
/// settings no longer admit; the others stay listed (their HLS windows kept) and are picked up
/// again by the new pipeline at their next announcement.
public enum IngestReconfiguration {
    /// The settings a new pipeline applies.
    public static let sections: Set<String> = ["$.license", "$.streamers", "$.channels", "$.discovery", "$.fec"]

    /// The channels of `channels` that `config` would refuse.
    public static func retired(_ channels: [Channel], under config: GatewayConfig) -> [Channel] {
        let policy = RegistryPolicy(config: config)
        return channels.filter { !admits($0, policy: policy, statics: config.channels) }
    }

    static func admits(_ channel: Channel, policy: RegistryPolicy, statics: [GatewayConfig.StaticChannel]) -> Bool {
        switch channel.origin {
        case .config:
            return statics.contains { $0.name == channel.name && $0.group == channel.group && $0.port == channel.port && $0.srt == channel.srt }
        case .sap:
            if let streamer = channel.streamer, !policy.allows(streamer: streamer) { return false }
            guard let license = policy.license else { return true }
            switch (channel.venueName, channel.contentOwner, channel.appDeveloper) {
            case (nil, nil, nil):
                return !policy.licenseRequired
            case let (venue?, owner?, developer?):
                return LicenseTriplet(venueName: venue, contentOwner: owner, appDeveloper: developer) == license
            default:
                return false
            }
        }
    }
}
