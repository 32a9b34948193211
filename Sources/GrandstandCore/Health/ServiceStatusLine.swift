extension ServiceState {
    /// The one-line summary systemd shows as the unit's `Status:` (sd_notify STATUS=):
    /// `up, 2 channels, in venue` or `down (wifi-down, no-channels; blink code 2), 0 channels,
    /// out of venue`. Field staff read it in `systemctl status grandstand` (docs/health.md).
    public func statusLine(channels: Int) -> String {
        let head = isUp ? "up" : "down (\(reasons.names.joined(separator: ", "))"
            + (reasons.blinkCode.map { "; blink code \($0)" } ?? "") + ")"
        return "\(head), \(channels) channel\(channels == 1 ? "" : "s"), \(inVenue ? "in venue" : "out of venue")"
    }
}
