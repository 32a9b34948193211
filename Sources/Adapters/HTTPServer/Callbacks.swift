import CGSMicroHTTPD
import CGSMicroHTTPDSystem
#if canImport(Glibc)
import Glibc
#endif

/// MHD_AccessHandlerCallback: called once when headers arrive, then per body chunk, then once
/// with no data, when the handler runs and the response is queued (libmicrohttpd's request flow).
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, slot in
    guard let cls, let connection, let slot, let uploadSize else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let state = slot.pointee else {
        slot.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
        return .YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(state).takeUnretainedValue()
    // Resumed after a deferred answer: send what the responder delivered.
    if let ready = pending.takeDeferredResponse() { return queue(ready, on: connection) }
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
            return pending.suspendUnlessAnswered(connection) ?? .YES
        }
        response = immediate
    }
    return queue(response, on: connection)
}

/// MHD_RequestCompletedCallback: releases the PendingRequest stored in the request slot.
let requestCompleted: MHD_RequestCompletedCallback = { _, _, slot, _ in
    guard let slot, let state = slot.pointee else { return }
    let pending = Unmanaged<PendingRequest>.fromOpaque(state)
    // A responder that fires after this must not touch the closed connection.
    pending.takeUnretainedValue().lock.withLock { pending.takeUnretainedValue().answered = true }
    pending.release()
    slot.pointee = nil
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    queueResponse(response, on: connection)
}

func queueResponse(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let made = response.body.withUnsafeBytes { gs_mhd_response_copying($0.baseAddress, $0.count) }
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
