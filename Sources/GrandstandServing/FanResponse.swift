import GrandstandCore
import HTTPServer

/// What every fan answer gets on its way out (docs/serving.md, "Headers"): CORS (and the
/// preflight headers on OPTIONS), an ETag on every 200 body (strong; segments bring their own),
/// 304 for a matching If-None-Match, byte ranges (206/416) on GET, `Accept-Ranges`, and
/// `no-store` on errors so no cache keeps a 404.
enum FanResponse {
    /// Applies the listener-wide rules to `response`, the full answer to `request`.
    static func finish(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        var response = response
        if request.method == "OPTIONS", response.status == 204, let allow = response.header("Allow") {
            // The router's OPTIONS answer is a CORS preflight for browser players sending
            // Range or If-None-Match (Fetch standard, "CORS protocol").
            response.headers += [("Access-Control-Allow-Methods", allow),
                                 ("Access-Control-Allow-Headers", "Range, If-None-Match, If-Range, Last-Event-ID"),
                                 ("Access-Control-Max-Age", "86400")]
        }
        response.headers.append(("Access-Control-Allow-Origin", "*"))
        guard response.stream == nil else { return response }
        guard response.status == 200 else {
            if response.status >= 400, response.header("Cache-Control") == nil { response.headers.append(("Cache-Control", "no-store")) }
            return response
        }
        response.headers.append(("Access-Control-Expose-Headers", "Content-Length, Content-Range, ETag"))
        let tag: String
        if let given = response.header("ETag") {
            tag = given
        } else {
            tag = EntityTag.forBody(response.file.flatMap { try? $0.file.read($0.range) } ?? response.body)
            response.headers.append(("ETag", tag))
        }
        if let condition = request.header("If-None-Match"), EntityTag.noneMatchFails(condition, current: tag) {
            // §15.4.5: the headers a 200 would carry that matter to a cache, no body.
            return HTTPResponse(status: 304, headers: response.headers.filter { !$0.name.caseInsensitiveEquals("Content-Type") })
        }
        response.headers.append(("Accept-Ranges", "bytes"))
        // §14.2: Range is defined for GET only; HEAD answers as a GET without Range would.
        guard request.method == "GET", let range = request.header("Range") else { return response }
        let length = response.bodyLength
        let selection = ByteRangeSelection.select(range: range, length: length, ifRange: request.header("If-Range"), entityTag: tag)
        switch selection {
        case .full:
            return response
        case .partial(let first, let last):
            response.status = 206
            if let file = response.file {
                response.file = FileBody(file.file, (file.range.lowerBound + first)..<(file.range.lowerBound + last + 1))
            } else {
                response.body = Array(response.body[first...last])
            }
            response.headers.append(("Content-Range", selection.contentRange(length: length) ?? ""))
            return response
        case .unsatisfiable:
            return HTTPResponse(status: 416, headers: [("Content-Range", selection.contentRange(length: length) ?? ""),
                                                       ("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store"),
                                                       ("Access-Control-Allow-Origin", "*")],
                                body: Array("range not satisfiable (\(length) bytes)\n".utf8))
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
