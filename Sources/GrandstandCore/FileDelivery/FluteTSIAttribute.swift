/// `a=flute-tsi:<decimal>` (docs/protocol.md "File channels"): the Transport Session Identifier
/// of a file channel's FLUTE session, media-level or else session-level. A TSI is at most 48 bits
/// (LCT S and H flags); anything else makes the channel unsupported rather than guessed.
public enum FluteTSIAttribute {
    public static let name = "flute-tsi"

    /// The TSI of `value`, nil unless 1–15 decimal digits below 2^48.
    public static func parse(_ value: String) -> UInt64? {
        let text = Substring(value).trimmingSpaces
        guard !text.isEmpty, text.count <= 15, text.allSatisfy({ $0 >= "0" && $0 <= "9" }),
              let tsi = UInt64(text), tsi < 1 << 48 else { return nil }
        return tsi
    }

    /// Sets `channel.fluteTSI` from the announcement; a malformed value makes it unsupported.
    static func apply(media: SessionDescription.Media?, sdp: SessionDescription, to channel: inout Channel) {
        guard let value = media?.attribute(name) ?? sdp.attribute(name) else { return }
        if let tsi = parse(value) {
            channel.fluteTSI = tsi
        } else {
            channel.kind = .unsupported(reason: "malformed a=flute-tsi \"\(value)\"")
        }
    }
}
