/// An FDT instance (RFC 6726 §3.4.2): the files a FLUTE session carries, each with its TOI,
/// Content-Location and optional length, type, MD5, encoding and FEC OTI. Instance-level
/// Content-Type/Encoding and FEC-OTI attributes are defaults for its files.
public struct FDTInstance: Sendable, Equatable {
    public struct File: Sendable, Equatable {
        public var toi: UInt64
        public var contentLocation: String
        public var contentLength: UInt64?
        public var transferLength: UInt64?
        public var contentType: String?
        public var contentEncoding: String?
        /// The 16-byte digest from Content-MD5 (base64), nil when absent.
        public var md5: [UInt8]?
        public var fecEncodingID: UInt8?
        public var maxSourceBlockLength: Int?
        public var symbolLength: Int?
        public var maxEncodingSymbols: Int?

        public init(toi: UInt64, contentLocation: String, contentLength: UInt64? = nil, transferLength: UInt64? = nil,
                    contentType: String? = nil, contentEncoding: String? = nil, md5: [UInt8]? = nil, fecEncodingID: UInt8? = nil,
                    maxSourceBlockLength: Int? = nil, symbolLength: Int? = nil, maxEncodingSymbols: Int? = nil) {
            self.toi = toi
            self.contentLocation = contentLocation
            self.contentLength = contentLength
            self.transferLength = transferLength
            self.contentType = contentType
            self.contentEncoding = contentEncoding
            self.md5 = md5
            self.fecEncodingID = fecEncodingID
            self.maxSourceBlockLength = maxSourceBlockLength
            self.symbolLength = symbolLength
            self.maxEncodingSymbols = maxEncodingSymbols
        }

        /// The OTI from the FDT attributes alone, when all of them are there.
        public var objectInfo: FECObjectInfo? {
            guard let id = fecEncodingID, let length = transferLength ?? contentLength, let e = symbolLength,
                  let b = maxSourceBlockLength else { return nil }
            return FECObjectInfo(encodingID: id, transferLength: length, symbolLength: e, maxSourceBlockLength: b,
                                 maxEncodingSymbols: maxEncodingSymbols)
        }
    }

    /// Expires: NTP seconds (RFC 5905 era 0) after which the instance is void.
    public var expires: UInt32
    public var complete: Bool
    public var files: [File]

    public init(expires: UInt32, complete: Bool = false, files: [File]) {
        self.expires = expires
        self.complete = complete
        self.files = files
    }

    /// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
    public static let ntpUnixOffset: Int64 = 2_208_988_800

    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    public static func parse(_ bytes: [UInt8]) -> Result<FDTInstance, ParseError> {
        let root: XMLElement
        switch XMLSubset.parse(bytes) {
        case .failure(let error): return .failure(ParseError(reason: error.description))
        case .success(let element): root = element
        }
        guard root.name == "FDT-Instance" else { return .failure(ParseError(reason: "root element is <\(root.name)>, not <FDT-Instance>")) }
        guard let expiresText = root.attribute("Expires"), let expires = UInt32(expiresText) else {
            return .failure(ParseError(reason: "FDT-Instance needs a numeric Expires"))
        }
        var files: [File] = []
        var tois: Set<UInt64> = []
        for element in root.children where element.name == "File" {
            func value(_ name: String) -> String? { element.attribute(name) ?? root.attribute(name) }
            func number(_ name: String) throws(ParseError) -> UInt64? {
                guard let text = value(name) else { return nil }
                guard let n = UInt64(text) else { throw ParseError(reason: "File \(name)=\"\(text)\" is not a number") }
                return n
            }
            do throws(ParseError) {
                guard let location = element.attribute("Content-Location"), !location.isEmpty else {
                    throw ParseError(reason: "File without Content-Location")
                }
                guard let toiText = element.attribute("TOI"), let toi = UInt64(toiText), toi != 0 else {
                    throw ParseError(reason: "File \(location): TOI must be a number > 0")
                }
                guard tois.insert(toi).inserted else { throw ParseError(reason: "TOI \(toi) listed twice") }
                var md5: [UInt8]? = nil
                if let text = element.attribute("Content-MD5") {
                    guard let digest = Base64.decode(text), digest.count == 16 else {
                        throw ParseError(reason: "File \(location): Content-MD5 is not base64 of 16 bytes")
                    }
                    md5 = digest
                }
                let fecID = try number("FEC-OTI-FEC-Encoding-ID")
                guard fecID.map({ $0 <= 255 }) ?? true else { throw ParseError(reason: "FEC-OTI-FEC-Encoding-ID > 255") }
                let b = try number("FEC-OTI-Maximum-Source-Block-Length"), e = try number("FEC-OTI-Encoding-Symbol-Length")
                let n = try number("FEC-OTI-Max-Number-of-Encoding-Symbols")
                guard [b, e, n].allSatisfy({ ($0 ?? 0) <= 0xFFFF_FFFF }) else { throw ParseError(reason: "FEC-OTI value out of range") }
                files.append(File(toi: toi, contentLocation: location, contentLength: try number("Content-Length"),
                                  transferLength: try number("Transfer-Length"), contentType: value("Content-Type"),
                                  contentEncoding: value("Content-Encoding"), md5: md5, fecEncodingID: fecID.map { UInt8($0) },
                                  maxSourceBlockLength: b.map { Int($0) }, symbolLength: e.map { Int($0) },
                                  maxEncodingSymbols: n.map { Int($0) }))
            } catch {
                return .failure(error)
            }
        }
        let complete = root.attribute("Complete").map { $0 == "true" || $0 == "1" } ?? false
        return .success(FDTInstance(expires: expires, complete: complete, files: files))
    }

    /// The instance as XML (the sender's), attributes escaped.
    public func xml() -> [UInt8] {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<FDT-Instance xmlns=\"urn:ietf:params:xml:ns:fdt\" Expires=\"\(expires)\"\(complete ? " Complete=\"true\"" : "")>\n"
        for file in files {
            text += "  <File TOI=\"\(file.toi)\" Content-Location=\"\(Self.escape(file.contentLocation))\""
            if let v = file.contentLength { text += " Content-Length=\"\(v)\"" }
            if let v = file.transferLength { text += " Transfer-Length=\"\(v)\"" }
            if let v = file.contentType { text += " Content-Type=\"\(Self.escape(v))\"" }
            if let v = file.contentEncoding { text += " Content-Encoding=\"\(Self.escape(v))\"" }
            if let v = file.md5 { text += " Content-MD5=\"\(Base64.encode(v))\"" }
            if let v = file.fecEncodingID { text += " FEC-OTI-FEC-Encoding-ID=\"\(v)\"" }
            if let v = file.maxSourceBlockLength { text += " FEC-OTI-Maximum-Source-Block-Length=\"\(v)\"" }
            if let v = file.symbolLength { text += " FEC-OTI-Encoding-Symbol-Length=\"\(v)\"" }
            if let v = file.maxEncodingSymbols { text += " FEC-OTI-Max-Number-of-Encoding-Symbols=\"\(v)\"" }
            text += "/>\n"
        }
        text += "</FDT-Instance>\n"
        return Array(text.utf8)
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case _ where c.value < 0x20: out += "&#\(c.value);"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
