import GrandstandCore
import HTTPServer

/// The fan listener's routes: the fan page, the channel list, playlists (live with blocking
/// reload, rewind), segments and parts, thumbnails, data-channel messages and /health.
/// No management route is served here.
struct FanRoutes: Sendable {
    let status: StatusReport
    let gateway: Gateway

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")], body: Array("method not allowed\n".utf8))
        }
        let response: HTTPResponse?
        switch request.path {
        case "/health": response = .json(status.json().encoded + "\n")
        case "/", "/index.html": response = HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"),
                                                                               ("Cache-Control", "no-cache")],
                                                        body: Array(FanPage.html.utf8))
        case "/channels.json": response = .json(ChannelCatalog.json(gateway).encoded + "\n")
        default:
            if request.path.hasPrefix("/channels/") {
                response = channelResource(request, responder)
            } else {
                response = .text(404, "not found")
            }
        }
        // Browser players on other origins (a venue app's web view) may read everything here.
        return response.map { var r = $0; r.headers.append(("Access-Control-Allow-Origin", "*")); return r }
    }

    private func channelResource(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        let parts = request.path.dropFirst("/channels/".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return .text(404, "not found") }
        let id = String(parts[0]), name = String(parts[1])
        if name == "messages.json" {
            guard let messages = gateway.dataMessages(id) else { return .text(404, "no such data channel") }
            return .json(ChannelCatalog.messagesJSON(messages).encoded + "\n")
        }
        guard let channel = gateway.videoChannel(id) else { return .text(404, "no such channel") }
        let now = realtimeNanoseconds()
        switch name {
        case "live.m3u8":
            switch ReloadRequest.parse(query: Self.query(request, keys: ["_HLS_msn", "_HLS_part", "_HLS_skip"])[...]) {
            case .failure(.badValue(let key)): return .text(400, "bad \(key)")
            case .success(let reload): return channel.livePlaylist(reload, responder: responder, now: now)
            }
        case "rewind.m3u8":
            guard let position = RewindPosition.parse(query: Self.query(request, keys: ["offset", "at"])[...]) else {
                return .text(400, "rewind.m3u8 needs offset=SECONDS (e.g. -20) or at=UNIX_MILLISECONDS")
            }
            return channel.rewindPlaylist(position)
        case "thumbnail.jpg":
            guard let jpeg = channel.thumbnailJPEG else { return .text(404, "no thumbnail yet") }
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=2")], body: jpeg)
        default:
            guard name.hasSuffix(".ts") else { return .text(404, "not found") }
            return channel.resource(name, responder: responder, now: now)
        }
    }

    /// Rebuilds `k=v&…` from the parsed arguments the core parsers understand.
    static func query(_ request: HTTPRequest, keys: [String]) -> String {
        keys.compactMap { key in request.query[key].map { "\(key)=\($0)" } }.joined(separator: "&")
    }
}

/// `/channels.json` and the management channel list.
enum ChannelCatalog {
    static func json(_ gateway: Gateway) -> JSONValue {
        .array(gateway.channels.map { channel in
            var members: [(String, JSONValue)] = [
                ("id", .string(channel.id)), ("name", .string(channel.name)), ("kind", .string(channel.kind.name)),
            ]
            let base = "/channels/\(channel.id)/"
            if channel.kind == .video, let video = gateway.videoChannel(channel.id) {
                let summary = video.summary
                members += [
                    ("live", .bool(summary.live)),
                    ("playlist", .string(base + "live.m3u8")),
                    ("rewind", .string(base + "rewind.m3u8?offset=-20")),
                    ("thumbnail", summary.hasThumbnail ? .string(base + "thumbnail.jpg") : .null),
                    ("bandwidth", .number(Double(summary.bitsPerSecond))),
                ]
            } else if channel.kind == .data {
                members.append(("messages", .string(base + "messages.json")))
            }
            return .object(members)
        })
    }

    static func messagesJSON(_ messages: [Gateway.DataMessage]) -> JSONValue {
        .array(messages.map { message in
            .object([
                ("timeMilliseconds", .number(Double(message.timestampNanoseconds / 1_000_000))),
                ("text", String(validating: message.payload, as: UTF8.self).map(JSONValue.string) ?? .null),
                ("base64", .string(TextEncoding.base64(message.payload[...]))),
            ])
        })
    }
}
