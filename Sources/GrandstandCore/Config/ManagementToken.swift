/// Rules for the management API's bearer token (RFC 6750 `b64token` characters), and the text
/// form of a generated one. The daemon generates and stores it (Daemon/TokenStore.swift).
public enum ManagementToken {
    /// Why `text` cannot be a bearer token, or nil when it can (emptiness is checked by the reader).
    public static func problem(_ text: String) -> String? {
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || "-._~+/=".utf8.contains(byte)
        }
        return allowed ? nil : "token may only hold letters, digits and - . _ ~ + / = (RFC 6750 b64token)"
    }

    /// Lowercase hex of random bytes: the text a generated token is stored and sent as.
    public static func text(fromRandom bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
