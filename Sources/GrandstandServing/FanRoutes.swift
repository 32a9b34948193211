import GrandstandCore
import GrandstandRuntime
import HTTPServer
import GrandstandOperations

/// The fan listener's routes: the fan app (`FanApp`: `/`, `/player.js`, `/app.js`, `/app.css`), the channel list, playlists (live with blocking
/// reload, rewind), segments and parts, thumbnails, data-channel messages (JSON and Server-Sent
/// Events) and /health. No management route is served here; paths are matched by the router,
/// never mapped to files. Every answer, now or deferred, passes through `FanResponse.finish`
/// (CORS, ETag, 304, ranges); docs/serving.md lists each route's headers.
public struct FanRoutes: Sendable {
    public let status: StatusReport
    public let gateway: Gateway
    /// Routes the operator features and the content cache add (catalog, recordings, timelines,
    /// `/items/ID/…`: GrandstandServices), after the live ones.
    public var more: [HTTPRoute] = []
    /// Scheduled inserts spliced into `live.m3u8` (GrandstandServices' timelines); nil in bare tests.
    public var inserts: (any LiveInserts)? = nil

    /// The listener's settings from `listeners.fanLimits` (`threads` has no effect: one loop).
    public static func serverConfiguration(_ address: ListenAddress, _ limits: GatewayConfig.FanLimits) -> HTTPListenerConfiguration {
        var configuration = HTTPListenerConfiguration(host: address.host, port: address.port)
        configuration.threadName = "http-fan"
        configuration.connectionLimit = UInt32(limits.connections)
        configuration.perClientLimit = UInt32(limits.perClient)
        configuration.idleTimeoutSeconds = UInt32(limits.idleTimeoutSeconds)
        configuration.headerTimeoutSeconds = UInt32(limits.headerTimeoutSeconds)
        configuration.connectionMemoryLimit = limits.headerBytes
        configuration.maxBodyBytes = maxRequestBodyBytes
        return configuration
    }

    /// The largest request body the fan listener reads (413 past it): a fan's item request
    /// (`POST /items`, `{"id","category"}` with an id of at most 200 bytes) fits.
    public static let maxRequestBodyBytes = 1024

    /// What fans may send: reads on every path, and `POST` on `/items` only (a fan's item
    /// request, docs/cache.md "Fans"); any other method, or POST elsewhere, is 405 with
    /// `Allow: GET, HEAD, OPTIONS` before a route is asked (`AcceptedMethods`).
    public static let acceptedMethods = AcceptedMethods(["GET"], more: ["/items": ["POST"]])

    /// Every fan route; the operator features and the cache add theirs. Reads only, but for the
    /// paths `acceptedMethods` opens to more.
    public var table: [HTTPRoute] {
        let routes = [
            HTTPRoute("GET", "/health") { _ in Self.noCache(.json(status.json().encoded + "\n"), "no-store") },
            HTTPRoute("GET", "/channels.json") { _ in Self.noCache(.json(ChannelCatalog.json(gateway).encoded + "\n")) },
            HTTPRoute("GET", "/files/{id}/*") { FileRoutes.fan($0, gateway: gateway) },
            HTTPRoute("GET", "/channels/{id}/messages.json") { request in
                guard let messages = gateway.dataMessages(request.parameters["id"] ?? "") else { return .text(404, "no such data channel") }
                return Self.noCache(.json(ChannelCatalog.messagesJSON(messages).encoded + "\n"))
            },
            HTTPRoute("GET", "/channels/{id}/events") { FanEvents.open($0, channel: $0.parameters["id"] ?? "", gateway: gateway) },
            HTTPRoute(["GET"], "/channels/{id}/live.m3u8", deferring: { live($0, $1, format: nil) }),
            HTTPRoute(["GET"], "/channels/{id}/live-ts.m3u8", deferring: { live($0, $1, format: .ts) }),
            HTTPRoute(["GET"], "/channels/{id}/rewind.m3u8", deferring: { request, _ in rewind(request, format: nil) }),
            HTTPRoute(["GET"], "/channels/{id}/live.mpd", deferring: { request, _ in video(request) { channel, now in channel.dashManifest(now: now) } }),
            // The gateway's clock (DASH UTCTiming `urn:mpeg:dash:utc:http-iso:2014`; the fan app's latency).
            HTTPRoute("GET", "/time") { _ in
                Self.noCache(HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")],
                                          body: Array(RFC3339.format(nanoseconds: SystemClock().wallNanoseconds(), fractionDigits: 3).utf8)),
                             "no-store")
            },
            HTTPRoute(["GET"], "/channels/{id}/rewind-ts.m3u8", deferring: { request, _ in rewind(request, format: .ts) }),
            HTTPRoute(["GET"], "/channels/{id}/thumbnail.jpg", deferring: { request, _ in
                video(request) { channel, _ in
                    guard let jpeg = channel.thumbnailJPEG else { return .text(404, "no thumbnail yet") }
                    // Refreshed every few seconds: a short life, then revalidation by ETag.
                    return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "public, max-age=2")], body: jpeg)
                }
            }),
            HTTPRoute(["GET"], "/channels/{id}/break/{insert}/{segment}", deferring: { request, responder in
                video(request) { channel, now in
                    // Nil from the inserts: held until the live part exists (answered through `responder`).
                    guard let inserts else { return .text(404, "no such break") }
                    return inserts.breakResource(request.parameters["id"] ?? "", insert: request.parameters["insert"] ?? "",
                                                 name: request.parameters["segment"] ?? "", channel: channel, responder: responder, now: now)
                }
            }),
            HTTPRoute(["GET"], "/channels/{id}/{segment}", deferring: { request, responder in
                video(request) { channel, now in
                    let name = request.parameters["segment"] ?? ""
                    guard name.hasSuffix(".ts") || name.hasSuffix(".m4s") || name.hasSuffix(".mp4") else { return .text(404, "not found") }
                    return channel.resource(name, responder: responder, now: now)
                }
            }),
        ]
        return FanApp.routes + routes + more
    }

    /// The listener's handler: the router (built once here) behind `FanResponse.finish`, which
    /// every answer passes, now or deferred, the router's own 404/405/OPTIONS included.
    public func handler() -> HTTPDeferringHandler {
        let router = HTTPRouter(table, acceptedMethods: Self.acceptedMethods)
        return { request, responder in
            let finishing = responder.adapting { FanResponse.finish($0, for: request) }
            return router.handle(request, finishing).map { FanResponse.finish($0, for: request) }
        }
    }

    /// `body`'s answer for the request's video channel (`{id}`), 404 for any other id.
    private func video(_ request: HTTPRequest, _ body: (VideoChannel, Int64) -> HTTPResponse?) -> HTTPResponse? {
        guard let channel = gateway.videoChannel(request.parameters["id"] ?? "") else { return .text(404, "no such channel") }
        return body(channel, SystemClock().wallNanoseconds())
    }

    /// `rewind.m3u8` (the channel's preferred format) or `rewind-ts.m3u8`.
    /// A CMAF rewind carries the channel's breaks as `LiveView` sees them.
    private func rewind(_ request: HTTPRequest, format requested: VideoChannel.Format?) -> HTTPResponse? {
        video(request) { channel, now in
            guard let position = RewindPosition.parse(query: Self.query(request, keys: ["offset", "at"])[...]) else {
                return .text(400, "rewind.m3u8 needs offset=SECONDS (e.g. -20) or at=UNIX_MILLISECONDS")
            }
            let view: LiveView
            switch LiveView.parse(request, rewind: true) {
            case .failure(let bad): return .text(400, bad.reason)
            case .success(let parsed): view = parsed
            }
            let format = requested ?? channel.preferredFormat
            let answer = channel.rewindPlaylist(position, format: format)
            let withBreak = format == .cmaf ? inserts?.cmafLive(request.parameters["id"] ?? "", channel: channel, now: now, view: view) : nil
            return withBreak.map { $0(answer) } ?? answer
        }
    }

    /// A query value the route refuses (400 with the reason).
    struct BadQuery: Error { var reason: String }

    /// `live.m3u8` (CMAF where the channel has it, else TS) or `live-ts.m3u8`, or an LL-HLS
    /// blocking reload (deferred), with scheduled inserts: on CMAF a break replaces the live
    /// media in place (`cmafLive`), on TS it is spliced in (then the playlist is classic).
    private func live(_ request: HTTPRequest, _ responder: HTTPResponder, format requested: VideoChannel.Format?) -> HTTPResponse? {
        video(request) { channel, now in
            let id = request.parameters["id"] ?? ""
            let format = requested ?? channel.preferredFormat
            let view: LiveView
            switch LiveView.parse(request, rewind: false) {
            case .failure(let bad): return .text(400, bad.reason)
            case .success(let parsed): view = parsed
            }
            let withBreak = format == .cmaf ? inserts?.cmafLive(id, channel: channel, now: now, view: view) : nil
            if withBreak == nil, let spliced = inserts?.liveWithInserts(id, render: { channel.livePlaylist(ReloadRequest(), format: .ts, responder: responder, now: now) }) {
                return spliced
            }
            let responder = withBreak.map { responder.adapting($0) } ?? responder
            let answer: @Sendable (HTTPResponse) -> HTTPResponse = withBreak ?? { $0 }
            switch ReloadRequest.parse(query: Self.query(request, keys: ["_HLS_msn", "_HLS_part", "_HLS_skip"])[...]) {
            case .failure(.badValue(let key)): return .text(400, "bad \(key)")
            case .success(let reload):
                guard reload.msn != nil else { return channel.livePlaylist(reload, format: format, responder: responder, now: now).map(answer) }
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
                return channel.livePlaylist(reload, format: format, responder: responder.adapting(cacheable), now: now).map(answer).map(cacheable)
            }
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

    public init(status: StatusReport, gateway: Gateway, more: [HTTPRoute] = [], inserts: (any LiveInserts)? = nil) {
        self.status = status
        self.gateway = gateway
        self.more = more
        self.inserts = inserts
    }
}

/// `/channels.json` and the management channel list.
public enum ChannelCatalog {
    /// The channel list; `forOperators` (the management API's) adds how each arrives: its transport
    /// (`rtp`; `udp`: loss seen only in TS continuity counters; `srt`, with its `srt` settings), its
    /// FEC, and for multi-program streams which multiplex a program came from. Fans are not shown a
    /// multiplex itself (its programs are the channels they play).
    public static func json(_ gateway: Gateway, forOperators: Bool = false) -> JSONValue {
        .array(gateway.channels.filter { forOperators || $0.kind != .multiplex }.map { channel in
            var members: [(String, JSONValue)] = [
                ("id", .string(channel.id)), ("name", .string(channel.name)), ("kind", .string(channel.kind.name)),
            ]
            if forOperators {
                members += [("transport", .string(channel.srt != nil ? "srt" : channel.rtp ? "rtp" : "udp")), ("fec", channel.fec.json)]
                if let srt = channel.srt { members.append(("srt", srt.json)) }
                if let multiplex = channel.multiplex, let number = channel.programNumber {
                    members += [("multiplex", .string(multiplex)), ("programNumber", .number(Double(number)))]
                }
                if channel.kind == .multiplex { members.append(("programs", .array(channel.programChannels.map(JSONValue.string)))) }
            }
            let base = "/channels/\(channel.id)/"
            if channel.kind == .video, let video = gateway.videoChannel(channel.id) {
                let summary = video.summary
                members += [
                    ("live", .bool(summary.live)),
                    ("playlist", .string(base + "live.m3u8")),
                    ("rewind", .string(base + "rewind.m3u8?offset=-20")),
                    // What live.m3u8 carries, its RFC 6381 codecs, and the TS form for legacy clients.
                    ("format", .string(summary.format.rawValue)),
                    ("codecs", summary.codecs.map(JSONValue.string) ?? .null),
                    ("playlistTS", .string(base + "live-ts.m3u8")),
                    ("dash", summary.format == .cmaf ? .string(base + "live.mpd") : .null),
                    ("rewindTS", .string(base + "rewind-ts.m3u8?offset=-20")),
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

/// Puts a channel's scheduled inserts into its live playlist (timelines, docs/inserts.md).
/// Which playlist of a channel a fan asks for, and the fan's session (`?session=S`, chosen by
/// the app per viewing): a play-once break is shown a session once, so its rewinds show the
/// channel's own media there (docs/inserts.md "Sessions").
public struct LiveView: Sendable, Equatable {
    public var rewind: Bool
    public var session: String?

    public init(rewind: Bool = false, session: String? = nil) {
        self.rewind = rewind
        self.session = session
    }

    /// The longest session value kept (longer ones are refused: they would bloat the store).
    public static let maxSessionBytes = 128

    /// The request's view, or the problem with its `session`.
    static func parse(_ request: HTTPRequest, rewind: Bool) -> Result<LiveView, FanRoutes.BadQuery> {
        let session = request.query["session"]
        if let session, session.isEmpty || session.utf8.count > maxSessionBytes {
            return .failure(FanRoutes.BadQuery(reason: "session: 1 to \(maxSessionBytes) bytes"))
        }
        return .success(LiveView(rewind: rewind, session: session))
    }
}

public protocol LiveInserts: Sendable {
    /// Channel `id`'s TS live playlist with its inserts spliced in; nil when it has none (the
    /// caller answers as usual). `render` is the channel's own non-blocking answer.
    func liveWithInserts(_ id: String, render: () -> HTTPResponse?) -> HTTPResponse?
    /// For a CMAF channel with a break in place: what turns the channel's own answers (LL-HLS,
    /// immediate or after a blocking reload, or a rewind playlist) into the answer with the break,
    /// as `view` sees it. Nil: none applies (no break due, or its media cannot be CMAF: then
    /// `liveWithInserts` splices TS).
    func cmafLive(_ id: String, channel: VideoChannel, now: Int64, view: LiveView) -> (@Sendable (HTTPResponse) -> HTTPResponse)?
    /// A break's header (`init.mp4`) or chunk (`seg<N>[.<P>].m4s`) under `/channels/ID/break/INSERT/`.
    func breakResource(_ id: String, insert: String, name: String, channel: VideoChannel, responder: HTTPResponder, now: Int64) -> HTTPResponse?
}
