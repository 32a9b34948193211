/// The Layered Coding Transport header (RFC 5651 §5.1) as FLUTE/ALC carry it: flags, congestion
/// control information, TSI, TOI, codepoint and header extensions. Parse is strict about every
/// length rule; encode writes the minimal TSI/TOI widths unless told otherwise.
public struct LCTHeader: Sendable, Equatable {
    /// Protocol-Specific Indication bits (ALC: unused, 0).
    public var psi: UInt8
    /// Congestion Control Information, 4·(C+1) bytes (C = 0…3).
    public var congestionControl: [UInt8]
    /// Transport Session Identifier (S and H flags choose 0, 2, 4 or 6 bytes; FLUTE needs ≥ 2).
    public var tsi: UInt64
    /// Transport Object Identifier (O and H choose 0…14 bytes; values beyond 64 bits are refused).
    public var toi: UInt64
    /// Codepoint: FLUTE carries the FEC Encoding ID here (RFC 6726 §5.1).
    public var codepoint: UInt8
    /// A: the sender closes the session after this packet.
    public var closeSession: Bool
    /// B: last packet of this object.
    public var closeObject: Bool
    public var extensions: [LCTExtension]
    /// Encoding choices for `encode` (parse fills them from the packet).
    public var tsiBytes: Int
    public var toiBytes: Int

    public init(tsi: UInt64, toi: UInt64, codepoint: UInt8 = 0, psi: UInt8 = 0, congestionControl: [UInt8] = [0, 0, 0, 0],
                closeSession: Bool = false, closeObject: Bool = false, extensions: [LCTExtension] = [],
                tsiBytes: Int? = nil, toiBytes: Int? = nil) {
        self.psi = psi & 3
        self.congestionControl = congestionControl
        self.tsi = tsi
        self.toi = toi
        self.codepoint = codepoint
        self.closeSession = closeSession
        self.closeObject = closeObject
        self.extensions = extensions
        self.tsiBytes = tsiBytes ?? 0
        self.toiBytes = toiBytes ?? 0
    }

    /// Parses the LCT header at the start of `packet`; returns it and its length (HDR_LEN · 4).
    public static func parse(_ packet: ArraySlice<UInt8>) -> Result<(header: LCTHeader, length: Int), FluteDrop> {
        guard let b0 = packet.octet(at: 0), let b1 = packet.octet(at: 1), let hdrLen = packet.octet(at: 2),
              let cp = packet.octet(at: 3) else { return .failure(.malformedLCT) }
        guard b0 >> 4 == 1 else { return .failure(.malformedLCT) }
        let c = Int((b0 >> 2) & 3)
        let s = Int(b1 >> 7), o = Int((b1 >> 5) & 3), h = Int((b1 >> 4) & 1)
        // Res (2 bits) are ignored, as RFC 5651 asks of receivers (RFC 3451's T/R lived there).
        let cciBytes = 4 * (c + 1)
        let tsiBytes = 4 * s + 2 * h
        let toiBytes = 4 * o + 2 * h
        let length = Int(hdrLen) * 4
        let fixed = 4 + cciBytes + tsiBytes + toiBytes
        guard tsiBytes > 0, toiBytes > 0, length >= fixed, length <= packet.count,
              let cci = packet.bytes(at: 4, length: cciBytes) else { return .failure(.malformedLCT) }
        guard let tsiField = packet.bytes(at: 4 + cciBytes, length: tsiBytes),
              let toiField = packet.bytes(at: 4 + cciBytes + tsiBytes, length: toiBytes) else { return .failure(.malformedLCT) }
        let tsi = tsiField.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        if toiField.count > 8, toiField.prefix(toiField.count - 8).contains(where: { $0 != 0 }) { return .failure(.toiTooLarge) }
        let toi = toiField.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard let area = packet.bytes(at: fixed, length: length - fixed) else { return .failure(.malformedLCT) }
        guard let extensions = LCTExtension.parseAll(area) else { return .failure(.malformedLCT) }
        var header = LCTHeader(tsi: tsi, toi: toi, codepoint: cp, psi: b0 & 3, congestionControl: Array(cci),
                               closeSession: b1 & 2 != 0, closeObject: b1 & 1 != 0, extensions: extensions,
                               tsiBytes: tsiBytes, toiBytes: toiBytes)
        header.psi = b0 & 3
        return .success((header, length))
    }

    /// Appends the header (with its extensions) to `out`. TSI/TOI widths are rounded up to the
    /// nearest encodable one that holds the value.
    public func encode(into out: inout [UInt8]) {
        let cci = congestionControl.count <= 4 ? 4 : congestionControl.count <= 8 ? 8 : congestionControl.count <= 12 ? 12 : 16
        let (s, o, h) = Self.widths(tsi: tsi, toi: toi, tsiBytes: tsiBytes, toiBytes: toiBytes)
        let tsiW = 4 * s + 2 * h, toiW = 4 * o + 2 * h
        var extBytes: [UInt8] = []
        for ext in extensions { ext.encode(into: &extBytes) }
        let total = 4 + cci + tsiW + toiW + extBytes.count
        out.append(0x10 | UInt8((cci / 4 - 1) << 2) | (psi & 3))
        out.append(UInt8(s << 7) | UInt8(o << 5) | UInt8(h << 4) | (closeSession ? 2 : 0) | (closeObject ? 1 : 0))
        out.append(UInt8(truncatingIfNeeded: total / 4))
        out.append(codepoint)
        out.append(contentsOf: congestionControl.prefix(cci))
        if congestionControl.count < cci { out.append(contentsOf: [UInt8](repeating: 0, count: cci - congestionControl.count)) }
        for i in stride(from: tsiW - 1, through: 0, by: -1) { out.append(i >= 8 ? 0 : UInt8(truncatingIfNeeded: tsi >> UInt64(i * 8))) }
        for i in stride(from: toiW - 1, through: 0, by: -1) { out.append(i >= 8 ? 0 : UInt8(truncatingIfNeeded: toi >> UInt64(i * 8))) }
        out.append(contentsOf: extBytes)
    }

    /// The smallest (S, O, H) whose TSI and TOI fields hold the values and are at least the
    /// requested widths (so a parsed header encodes back to the same bytes).
    static func widths(tsi: UInt64, toi: UInt64, tsiBytes: Int, toiBytes: Int) -> (s: Int, o: Int, h: Int) {
        func needed(_ value: UInt64) -> Int { max(1, (64 - value.leadingZeroBitCount + 7) / 8) }
        let tsiMin = max(needed(tsi), tsiBytes), toiMin = max(needed(toi), toiBytes)
        var best: (s: Int, o: Int, h: Int) = (1, 3, 1)
        var bestSize = Int.max
        for h in 0...1 {
            for s in 0...1 {
                for o in 0...3 {
                    let tsiW = 4 * s + 2 * h, toiW = 4 * o + 2 * h
                    guard tsiW >= tsiMin, toiW >= toiMin, tsiW + toiW < bestSize else { continue }
                    best = (s, o, h)
                    bestSize = tsiW + toiW
                }
            }
        }
        return best
    }

    /// Equal when every field is; the width hints (`tsiBytes`, `toiBytes`) do not count.
    public static func == (a: LCTHeader, b: LCTHeader) -> Bool {
        a.psi == b.psi && a.congestionControl == b.congestionControl && a.tsi == b.tsi && a.toi == b.toi && a.codepoint == b.codepoint
            && a.closeSession == b.closeSession && a.closeObject == b.closeObject && a.extensions == b.extensions
    }

    /// The FLUTE EXT_FDT extension, if present.
    public var fdt: (version: UInt8, instanceID: UInt32)? {
        for ext in extensions { if case .fdt(let version, let id) = ext { return (version, id) } }
        return nil
    }

    /// The EXT_FTI contents (the FEC OTI), if present.
    public var fti: [UInt8]? {
        for ext in extensions { if case .fti(let bytes) = ext { return bytes } }
        return nil
    }

    /// The EXT_CENC content encoding, if present.
    public var contentEncoding: UInt8? {
        for ext in extensions { if case .contentEncoding(let algorithm) = ext { return algorithm } }
        return nil
    }
}
