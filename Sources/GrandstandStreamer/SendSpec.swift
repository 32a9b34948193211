import GrandstandCore

/// The channel arguments of `grandstand send`, parsed: `--video NAME=FILE@GROUP:PORT`,
/// `--data NAME@GROUP:PORT[=FILE]`, `--license VENUE/OWNER/APP`. IPv6 groups go in brackets
/// (`@[ff15::1]:5000`).
public enum SendSpec {
    public struct Video: Equatable {
        var name: String
        var file: String
        var destination: Endpoint
    }

    public struct Data: Equatable {
        var name: String
        var destination: Endpoint
        /// A JSON-lines file of messages; nil sends a generated counter.
        var file: String?
    }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    static func video(_ text: String) throws(Failure) -> Video {
        guard let at = text.lastIndex(of: "@"), let equals = text[..<at].firstIndex(of: "=") else {
            throw Failure("--video \"\(text)\": expected NAME=FILE@GROUP:PORT")
        }
        let name = String(text[..<equals]), file = String(text[text.index(after: equals)..<at])
        guard !name.isEmpty, !file.isEmpty else { throw Failure("--video \"\(text)\": NAME and FILE must not be empty") }
        return Video(name: name, file: file, destination: try endpoint(text[text.index(after: at)...], option: "--video"))
    }

    static func data(_ text: String) throws(Failure) -> Data {
        guard let at = text.firstIndex(of: "@") else { throw Failure("--data \"\(text)\": expected NAME@GROUP:PORT[=FILE]") }
        let name = String(text[..<at])
        guard !name.isEmpty else { throw Failure("--data \"\(text)\": NAME must not be empty") }
        var rest = text[text.index(after: at)...]
        var file: String? = nil
        if let equals = rest.firstIndex(of: "=") {
            file = String(rest[rest.index(after: equals)...])
            rest = rest[..<equals]
            guard file?.isEmpty == false else { throw Failure("--data \"\(text)\": FILE after = must not be empty") }
        }
        return Data(name: name, destination: try endpoint(rest, option: "--data"), file: file)
    }

    /// `GROUP:PORT` or `[V6GROUP]:PORT`; the group must be multicast.
    static func endpoint(_ text: Substring, option: String) throws(Failure) -> Endpoint {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw Failure("\(option): \"\(text)\" is not [IPV6]:PORT")
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw Failure("\(option): \"\(text)\" is not GROUP:PORT") }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.contains(":") else { throw Failure("\(option): IPv6 groups go in brackets: [\(host)]:PORT") }
        }
        guard let address = IPAddress(parsing: host) else { throw Failure("\(option): \"\(host)\" is not an IP address") }
        guard address.isMulticast else { throw Failure("\(option): \(address) is not a multicast group") }
        guard let number = UInt16(port), number > 0 else { throw Failure("\(option): \"\(port)\" is not a port (1-65535)") }
        return Endpoint(address: address, port: number)
    }

    static func license(_ text: String) throws(Failure) -> LicenseTriplet {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw Failure("--license \"\(text)\": expected VENUE/OWNER/APP, three non-empty parts")
        }
        return LicenseTriplet(venueName: String(parts[0]), contentOwner: String(parts[1]), appDeveloper: String(parts[2]))
    }
}
