/// The DVB service description table (ETSI EN 300 468 §5.2.3, PID 0x0011, table_id 0x42 for the
/// actual transport stream): each service's id (the PAT's program_number), type, provider and
/// name from its service_descriptor (§6.2.33, tag 0x48). A multi-program channel names its
/// programs from it.
public struct ServiceDescriptionTable: Sendable, Equatable {
    public struct Service: Sendable, Equatable {
        /// The program_number of the same program in the PAT.
        public var serviceID: UInt16
        /// service_type (0x01 digital television, 0x02 radio, 0x19 advanced codec HD, …); nil
        /// without a service descriptor.
        public var type: UInt8?
        public var provider: String?
        public var name: String?
        /// running_status (§5.2.3 table 6): 4 = running.
        public var runningStatus: UInt8
    }

    public var transportStreamID: UInt16
    public var originalNetworkID: UInt16
    public var version: UInt8
    public var sectionNumber: UInt8
    public var lastSectionNumber: UInt8
    public var services: [Service]

    public static let pid: UInt16 = 0x0011
    public static let actualTableID: UInt8 = 0x42

    /// Parses a whole, CRC-checked section (`PSISectionAssembler`); nil unless it is a current
    /// SDT section of the actual transport stream. A service loop or descriptor that runs past
    /// the section ends the parse with what was whole before it.
    public static func parse(section s: [UInt8]) -> ServiceDescriptionTable? {
        guard s.count >= 15, s[0] == actualTableID, s[1] & 0x80 != 0, s[5] & 0x01 == 1 else { return nil }
        let length = Int(s[1] & 0x0F) << 8 | Int(s[2])
        let end = min(s.count, 3 + length) - 4   // before CRC_32
        var table = ServiceDescriptionTable(transportStreamID: UInt16(s[3]) << 8 | UInt16(s[4]),
                                            originalNetworkID: UInt16(s[8]) << 8 | UInt16(s[9]),
                                            version: (s[5] >> 1) & 0x1F, sectionNumber: s[6], lastSectionNumber: s[7],
                                            services: [])
        var i = 11
        while i + 5 <= end {
            let id = UInt16(s[i]) << 8 | UInt16(s[i + 1])
            let running = s[i + 3] >> 5
            let loopLength = Int(s[i + 3] & 0x0F) << 8 | Int(s[i + 4])
            let descriptorsEnd = i + 5 + loopLength
            guard descriptorsEnd <= end else { break }
            var service = Service(serviceID: id, type: nil, provider: nil, name: nil, runningStatus: running)
            var d = i + 5
            while d + 2 <= descriptorsEnd {
                let tag = s[d], dLength = Int(s[d + 1])
                let body = d + 2, bodyEnd = body + dLength
                guard bodyEnd <= descriptorsEnd else { break }
                if tag == 0x48, dLength >= 3 {
                    let providerLength = Int(s[body + 1])
                    let nameAt = body + 2 + providerLength
                    if nameAt < bodyEnd {
                        let nameLength = Int(s[nameAt])
                        if nameAt + 1 + nameLength <= bodyEnd {
                            service.type = s[body]
                            service.provider = DVBText.decode(s[(body + 2)..<nameAt])
                            service.name = DVBText.decode(s[(nameAt + 1)..<(nameAt + 1 + nameLength)])
                        }
                    }
                }
                d = bodyEnd
            }
            table.services.append(service)
            i = descriptorsEnd
        }
        return table
    }
}

/// DVB text fields (ETSI EN 300 468 Annex A): an optional first byte below 0x20 selects the
/// character table. UTF-8 (0x15) and UTF-16 (0x11) are decoded as such; the ISO/IEC 8859 tables
/// (0x01–0x0B, 0x10 0x00 NN) and the default table (ISO/IEC 6937) as Latin-1 for bytes ≥ 0xA0,
/// which keeps every ASCII name exact; control codes (0x80–0x9F: emphasis, CR/LF) are dropped.
/// Empty text is nil.
public enum DVBText {
    enum Table { case singleByte, utf8, utf16 }

    public static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var text = bytes
        guard let first = text.first else { return nil }
        var table = Table.singleByte
        if first < 0x20 {
            text = text.dropFirst()
            switch first {
            case 0x15: table = .utf8
            case 0x11: table = .utf16
            case 0x10: text = text.dropFirst(2)
            case 0x1F: text = text.dropFirst()
            default: break
            }
        }
        let decoded: String
        switch table {
        case .utf8:
            decoded = String(decoding: text, as: UTF8.self)
        case .utf16:
            var units: [UInt16] = []
            var i = text.startIndex
            while i + 1 < text.endIndex { units.append(UInt16(text[i]) << 8 | UInt16(text[i + 1])); i += 2 }
            decoded = String(decoding: units, as: UTF16.self)
        case .singleByte:
            var scalars = String.UnicodeScalarView()
            for byte in text where byte >= 0x20 && !(0x7F...0x9F).contains(byte) {
                scalars.append(Unicode.Scalar(byte))
            }
            decoded = String(scalars)
        }
        return decoded.isEmpty ? nil : decoded
    }
}
