import GrandstandCore
import GrandstandRuntime
import HTTPServer

/// The fan listener's routes: the fan page, the channel list, playlists (live with blocking
/// reload, rewind), segments and parts, thumbnails, data-channel messages (JSON and Server-Sent
/// Events) and /health. No management route is served here; paths are matched, never mapped to
/// files. Every answer, now or deferred, passes through `FanResponse.finish` (CORS, ETag, 304,
/// ranges); docs/serving.md lists each route's headers.
struct FanRoutes: Sendable {
    let status: StatusReport
    let gateway: Gateway
    /// Catalog, recordings and timelines (Catalog/OperatorServices.swift); nil in bare tests.
    var services: OperatorServices? = nil
    /// `/items/ID/…` from the content cache (docs/cache.md), nil without one.
    var cache: CacheFanRoutes? = nil

    /// The listener's libmicrohttpd settings from `listeners.fanLimits`.
    static func serverConfiguration(_ address: ListenAddress, _ limits: GatewayConfig.FanLimits) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration(host: address.host, port: address.port)
        configuration.connectionLimit = UInt32(limits.connections)
        configuration.perClientLimit = UInt32(limits.perClient)
        configuration.idleTimeoutSeconds = UInt32(limits.idleTimeoutSeconds)
        configuration.headerTimeoutSeconds = UInt32(limits.headerTimeoutSeconds)
        configuration.connectionMemoryLimit = limits.headerBytes
        configuration.threads = UInt32(limits.threads)
        configuration.maxBodyBytes = 0
        return configuration
    }

    /// The HTTP engine `listeners.fanLimits.engine` names (docs/serving.md, "Engines").
    static func engine(_ limits: GatewayConfig.FanLimits) -> HTTPEngine {
        limits.engine == .libmicrohttpd ? .libmicrohttpd : .grandstand
    }

    func handle(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        let finishing = responder.adapting { FanResponse.finish($0, for: request) }
        return route(request, finishing).map { FanResponse.finish($0, for: request) }
    }

    private func route(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        switch request.method {
        case "GET", "HEAD": break
        case "OPTIONS":
            // CORS preflight for browser players sending Range or If-None-Match.
            return HTTPResponse(status: 204, headers: [("Allow", "GET, HEAD, OPTIONS"),
                                                       ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
                                                       ("Access-Control-Allow-Headers", "Range, If-None-Match, If-Range, Last-Event-ID"),
                                                       ("Access-Control-Max-Age", "86400")])
        default:
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD, OPTIONS")], body: Array("method not allowed\n".utf8))
        }
        if let answer = services?.fan(request) { return answer }
        switch request.path {
        case "/health": return Self.noCache(.json(status.json().encoded + "\n"), "no-store")
        case "/", "/index.html": return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"),
                                                                           ("Cache-Control", "no-cache")],
                                                    body: Array(FanPage.html.utf8))
        case "/channels.json": return Self.noCache(.json(ChannelCatalog.json(gateway).encoded + "\n"))
        default:
            if request.path.hasPrefix("/files/") { return FileRoutes.fan(request, gateway: gateway) }
            if request.path.hasPrefix("/items/"), let cache { return cache.handle(request) }
            guard request.path.hasPrefix("/channels/") else { return .text(404, "not found") }
            return channelResource(request, responder)
        }
    }

    private func channelResource(_ request: HTTPRequest, _ responder: HTTPResponder) -> HTTPResponse? {
        let parts = request.path.dropFirst("/channels/".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return .text(404, "not found") }
        let id = String(parts[0]), name = String(parts[1])
        switch name {
        case "messages.json":
            guard let messages = gateway.dataMessages(id) else { return .text(404, "no such data channel") }
            return Self.noCache(.json(ChannelCatalog.messagesJSON(messages).encoded + "\n"))
        case "events":
            return FanEvents.open(request, channel: id, gateway: gateway)
        default:
            break
        }
        guard let channel = gateway.videoChannel(id) else { return .text(404, "no such channel") }
        let now = SystemClock().wallNanoseconds()
        switch name {
        case "live.m3u8":
            if let spliced = services?.liveWithInserts(id, render: { channel.livePlaylist(ReloadRequest(), responder: responder, now: now) }) { return spliced }
            switch ReloadRequest.parse(query: Self.query(request, keys: ["_HLS_msn", "_HLS_part", "_HLS_skip"])[...]) {
            case .failure(.badValue(let key)): return .text(400, "bad \(key)")
            case .success(let reload):
                guard reload.msn != nil else { return channel.livePlaylist(reload, responder: responder, now: now) }
                // A blocking reload's URL names one playlist state: caches may keep the answer
                // (Apple's LL-HLS guidance: six target durations).
                let maxAge = 6 * gateway.settings.segmenter.targetDurationSeconds
                let cacheable: @Sendable (HTTPResponse) -> HTTPResponse = { response in
                    guard response.status == 200 else { return response }
                    var response = response
                    response.headers.removeAll { $0.name == "Cache-Control" }
                    response.headers.append(("Cache-Control", "public, max-age=\(maxAge)"))
                    return response
                }
                return channel.livePlaylist(reload, responder: responder.adapting(cacheable), now: now).map(cacheable)
            }
        case "rewind.m3u8":
            guard let position = RewindPosition.parse(query: Self.query(request, keys: ["offset", "at"])[...]) else {
                return .text(400, "rewind.m3u8 needs offset=SECONDS (e.g. -20) or at=UNIX_MILLISECONDS")
            }
            return channel.rewindPlaylist(position)
        case "thumbnail.jpg":
            guard let jpeg = channel.thumbnailJPEG else { return .text(404, "no thumbnail yet") }
            // Refreshed every few seconds: a short life, then revalidation by ETag.
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "public, max-age=2")], body: jpeg)
        default:
            guard name.hasSuffix(".ts") else { return .text(404, "not found") }
            return channel.resource(name, responder: responder, now: now)
        }
    }

    /// `response` with a Cache-Control for content that changes at any time.
    static func noCache(_ response: HTTPResponse, _ value: String = "no-cache") -> HTTPResponse {
        var response = response
        response.headers.append(("Cache-Control", value))
        return response
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
            } else if channel.kind == .file {
                members += [("files", .string("/files/\(channel.id)/")), ("events", .string(base + "events"))]
            } else if channel.kind == .data {
                members.append(("messages", .string(base + "messages.json")))
                members.append(("events", .string(base + "events")))
            }
            return .object(members)
        })
    }

    static func messagesJSON(_ messages: [Gateway.DataMessage]) -> JSONValue {
        .array(messages.map(messageJSON))
    }

    /// One data message: its sequence (the SSE `id`), capture time, text when UTF-8, and bytes.
    static func messageJSON(_ message: Gateway.DataMessage) -> JSONValue {
        .object([
            ("sequence", .number(Double(message.sequence))),
            ("timeMilliseconds", .number(Double(message.timestampNanoseconds / 1_000_000))),
            ("text", String(validating: message.payload, as: UTF8.self).map(JSONValue.string) ?? .null),
            ("base64", .string(TextEncoding.base64(message.payload[...]))),
        ])
    }
}
