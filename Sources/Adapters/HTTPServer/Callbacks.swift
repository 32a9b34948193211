import CGSMicroHTTPD
import CGSMicroHTTPDSystem
#if canImport(Glibc)
import Glibc
#endif

/// MHD_AccessHandlerCallback: called once when headers arrive, then per body chunk, then once
/// with no data, when the handler runs and the response is queued (libmicrohttpd's request flow).
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, slot in
    guard let cls, let connection, let slot, let uploadSize else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let state = slot.pointee else {
        if lacksRequiredHost(connection, version: version) {
            // RFC 9112 §3.2: an HTTP/1.1 request without Host gets 400 (libmicrohttpd 0.9.75 lets
            // it through). Answered before the body, so libmicrohttpd closes the connection after.
            return queueResponse(.text(400, "HTTP/1.1 requests need a Host header"), on: connection, context)
        }
        // Headers complete: the header deadline no longer applies to this connection. (Answering
        // here already would make libmicrohttpd 0.9.75 close the connection after the answer.)
        gs_mhd_request_began(connection)
        slot.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
        return .YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(state).takeUnretainedValue()
    // Resumed after a deferred answer: send what the responder delivered.
    if let ready = pending.takeDeferredResponse() { return queueResponse(ready, on: connection, context) }
    if uploadSize.pointee > 0 {
        if let uploadData, pending.body.count + uploadSize.pointee <= context.maxBodyBytes {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
            }
        } else {
            pending.bodyTooLarge = true
        }
        uploadSize.pointee = 0
        return .YES
    }
    let response: HTTPResponse
    if pending.bodyTooLarge {
        response = .text(413, "request body larger than \(context.maxBodyBytes) bytes")
    } else {
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "GET",
            path: url.map { String(cString: $0) } ?? "/",
            query: connectionValues(connection, .GET_ARGUMENT_KIND, lowercased: false),
            headers: connectionValues(connection, .HEADER_KIND, lowercased: true),
            body: pending.body,
            client: gs_mhd_client_address(connection).flatMap(SocketAddress.describe))
        let responder = HTTPResponder(pending: pending, connection: connection)
        guard let immediate = context.handler(request, responder) else {
            // The handler answers later (blocking playlist reload): suspend until it does.
            return pending.suspendUnlessAnswered(connection, context) ?? .YES
        }
        response = immediate
    }
    return queueResponse(response, on: connection, context)
}

/// An HTTP/1.1 request (or later 1.x) without a Host header field.
private func lacksRequiredHost(_ connection: OpaquePointer, version: UnsafePointer<CChar>?) -> Bool {
    guard let version, strcmp(version, "HTTP/1.0") != 0 else { return false }
    return MHD_lookup_connection_value(connection, .HEADER_KIND, "Host") == nil
}

/// MHD_RequestCompletedCallback: releases the PendingRequest stored in the request slot.
let requestCompleted: MHD_RequestCompletedCallback = { _, connection, slot, _ in
    // The connection now waits for its next request: the header deadline starts again.
    if let connection { gs_mhd_request_ended(connection) }
    guard let slot, let state = slot.pointee else { return }
    let pending = Unmanaged<PendingRequest>.fromOpaque(state)
    // A responder that fires after this must not touch the closed connection.
    pending.takeUnretainedValue().lock.withLock { pending.takeUnretainedValue().answered = true }
    pending.release()
    slot.pointee = nil
}

/// Bodies at least this large are lent to libmicrohttpd instead of copied.
private let borrowThreshold = 16 * 1024

func queueResponse(_ response: HTTPResponse, on connection: OpaquePointer, _ context: ServerContext) -> MHD_Result {
    let made: OpaquePointer?
    if let stream = response.stream {
        stream.attach(connection)
        context.streams.add(stream)
        made = gs_mhd_response_streaming(16 * 1024, streamReader, Unmanaged.passRetained(stream).toOpaque(), streamReleased)
        if made == nil { stream.close() }
    } else if let file = response.file {
        // sendfile from the page cache; libmicrohttpd closes its own duplicate of the descriptor.
        made = gs_mhd_response_from_fd(file.file.descriptor, UInt64(file.range.lowerBound), UInt64(file.range.count))
    } else if response.body.count >= borrowThreshold {
        // The box keeps the array (and so its storage) alive, unmodified, until libmicrohttpd
        // releases it: no copy of segments. Native Swift arrays on Linux are contiguous.
        let box = Unmanaged.passRetained(BodyBox(response.body))
        made = box.takeUnretainedValue().body.withUnsafeBytes {
            gs_mhd_response_borrowing($0.baseAddress, $0.count, bodyReleased, box.toOpaque())
        }
        if made == nil { box.release() }
    } else {
        made = response.body.withUnsafeBytes { gs_mhd_response_copying($0.baseAddress, $0.count) }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for header in response.headers {
        guard MHD_add_response_header(made, header.name, header.value) == .YES else { return .NO }
    }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// Collects one kind of connection value (headers or query arguments) into a dictionary.
private func connectionValues(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    final class Box { var values: [String: String] = [:]; let lowercased: Bool; init(_ l: Bool) { lowercased = l } }
    let box = Box(lowercased)
    _ = withExtendedLifetime(box) {
        MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<Box>.fromOpaque(cls).takeUnretainedValue()
            let name = String(cString: key)
            box.values[box.lowercased ? name.lowercased() : name] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, Unmanaged.passUnretained(box).toOpaque())
    }
    return box.values
}

/// A response body lent to libmicrohttpd (see `queueResponse`).
final class BodyBox {
    let body: [UInt8]
    init(_ body: [UInt8]) { self.body = body }
}

let bodyReleased: @convention(c) (UnsafeMutableRawPointer?) -> Void = { cls in
    guard let cls else { return }
    Unmanaged<BodyBox>.fromOpaque(cls).release()
}
