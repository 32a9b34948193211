/// The StadiumVision license triplet a channel is announced with and a box is configured with.
/// On the wire (docs/protocol.md): `a=x-grandstand-license:venueName=V;contentOwner=O;appDeveloper=D`,
/// keys in any order, each exactly once, values non-empty and percent-encoded (RFC 3986 §2.1)
/// where they contain `%`, `;`, `=` or control characters; unknown keys are ignored.
public struct LicenseTriplet: Sendable, Hashable {
    public static let attributeName = "x-grandstand-license"

    public var venueName: String
    public var contentOwner: String
    public var appDeveloper: String

    public init(venueName: String, contentOwner: String, appDeveloper: String) {
        self.venueName = venueName
        self.contentOwner = contentOwner
        self.appDeveloper = appDeveloper
    }

    /// Parses the attribute value; the error says what is wrong.
    public static func parse(_ value: String) -> Result<LicenseTriplet, LicenseSyntaxError> {
        var found: [String: String] = [:]
        for item in value.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = item.firstIndex(of: "=") else { return .failure(.init("\"\(item)\" is not key=value")) }
            let key = String(item[..<equals])
            guard let decoded = percentDecode(item[item.index(after: equals)...]) else {
                return .failure(.init("bad percent-encoding in \(key)"))
            }
            guard ["venueName", "contentOwner", "appDeveloper"].contains(key) else { continue }
            guard found[key] == nil else { return .failure(.init("\(key) appears twice")) }
            guard !decoded.isEmpty else { return .failure(.init("\(key) is empty")) }
            found[key] = decoded
        }
        guard let venue = found["venueName"], let owner = found["contentOwner"], let developer = found["appDeveloper"] else {
            let missing = ["venueName", "contentOwner", "appDeveloper"].filter { found[$0] == nil }
            return .failure(.init("missing \(missing.joined(separator: ", "))"))
        }
        return .success(LicenseTriplet(venueName: venue, contentOwner: owner, appDeveloper: developer))
    }

    /// The attribute value, percent-encoding what would break the syntax.
    public var attributeValue: String {
        "venueName=\(Self.percentEncode(venueName));contentOwner=\(Self.percentEncode(contentOwner));"
            + "appDeveloper=\(Self.percentEncode(appDeveloper))"
    }

    static func percentEncode(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x25, 0x3B, 0x3D, 0..<0x20, 0x7F:   // % ; = and control characters
                out += "%" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16, uppercase: true)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func percentDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(asciiHexValue), let low = iterator.next().flatMap(asciiHexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.utf8) == bytes ? text : nil   // invalid UTF-8 would have been repaired
    }
}

/// Why an `x-grandstand-license` value was refused.
public struct LicenseSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
    public var description: String { "malformed \(LicenseTriplet.attributeName): \(reason)" }
}
