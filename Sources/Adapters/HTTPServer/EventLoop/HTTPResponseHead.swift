/// Serialises a response's status line and header fields (RFC 9112 §4, §6): the handler's
/// headers, then the framing (Content-Length or chunked) and Connection fields the listener
/// owns; the handler's own framing fields are dropped.
enum HTTPResponseHead {
    static func write(_ response: HTTPResponse, into out: inout [UInt8], bodyLength: Int?, chunked: Bool,
                      keepAlive: Bool, minorVersion: Int) {
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        out.append(contentsOf: String(response.status).utf8)
        out.append(0x20)
        out.append(contentsOf: reason(response.status).utf8)
        out.append(contentsOf: [0x0D, 0x0A])
        for header in response.headers {
            if header.name.caseInsensitiveEquals("Content-Length") || header.name.caseInsensitiveEquals("Transfer-Encoding")
                || header.name.caseInsensitiveEquals("Connection") { continue }
            out.append(contentsOf: header.name.utf8)
            out.append(contentsOf: [0x3A, 0x20])
            out.append(contentsOf: header.value.utf8)
            out.append(contentsOf: [0x0D, 0x0A])
        }
        if let bodyLength {
            out.append(contentsOf: "Content-Length: ".utf8)
            out.append(contentsOf: String(bodyLength).utf8)
            out.append(contentsOf: [0x0D, 0x0A])
        } else if chunked {
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if minorVersion == 0 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: [0x0D, 0x0A])
    }

    /// True when the comma-separated `value` holds `token` (case-insensitive).
    static func hasToken(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { String($0).trimmingSpaces.caseInsensitiveEquals(token) }
    }

    /// RFC 9110 §15 reason phrases for the statuses the listeners answer.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
