/// A 48-bit IEEE 802 hardware address (interface MAC, station MAC, AP BSSID), as nl80211 reports
/// it and as configs write it (`network.wifiApInfo[].bssid`).
public struct MACAddress: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Exactly 6 bytes, else nil.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// "aa:bb:cc:dd:ee:ff" (case-insensitive; "-" also accepted), else nil.
    public init?(_ text: String) {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "-" }
        let bytes = parts.compactMap { $0.count == 2 ? UInt8($0, radix: 16) : nil }
        guard parts.count == 6, bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Lowercase, colon-separated: what `iw` prints.
    public var description: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// The lowercase colon form (`02:00:00:00:01:00`), or nil if `text` is not a MAC address.
    public static func normalized(_ text: String) -> String? { MACAddress(text)?.description }
}
