extension CacheItemEvent {
    /// The operator's form (`GET /api/v1/events`, journald): a `GatewayEvent` of kind `item-…`
    /// with `ITEM`, `CATEGORY`, `STATE` and, by kind, `PATH`/`FILE_BYTES`/`FILE_SIZE` or
    /// `ERROR`/`ERROR_DETAIL` (docs/logging.md).
    public var gatewayEvent: GatewayEvent {
        var fields: [(name: String, value: String)] = [("ITEM", id), ("CATEGORY", category), ("STATE", state.rawValue)]
        var message = "item \(id): \(kind.rawValue)"
        if let path, let fileBytes {
            fields += [("PATH", path), ("FILE_BYTES", String(fileBytes))]
            if let fileSize { fields.append(("FILE_SIZE", String(fileSize))) }
            message += " \(path) \(fileBytes)\(fileSize.map { " of \($0)" } ?? "") bytes"
        }
        if let error {
            fields.append(("ERROR", error.rawValue))
            if let errorDetail { fields.append(("ERROR_DETAIL", errorDetail)) }
            message += " (\(error.rawValue)\(errorDetail.map { ": \($0)" } ?? ""))"
        }
        return GatewayEvent(kind.gatewayKind, message, fields: fields)
    }

    /// The fans' form (`GET /items/events` on the fan listener): `{"kind","id","category",
    /// "state","time"}` plus `path`/`fileBytes`/`fileSize` or `error` (the code). No error
    /// detail, origin URL, header or token: those are the operator's.
    public var fanJSON: JSONValue {
        var members: [(String, JSONValue)] = [("kind", .string(kind.rawValue)), ("id", .string(id)), ("category", .string(category)),
                                              ("state", .string(state.rawValue)),
                                              ("time", .string(RFC3339.format(nanoseconds: wallNanoseconds, fractionDigits: 3)))]
        if let path, let fileBytes {
            members += [("path", .string(path)), ("fileBytes", .number(Double(fileBytes))), ("fileSize", fileSize.map { .number(Double($0)) } ?? .null)]
        }
        if let error { members.append(("error", .string(error.rawValue))) }
        return .object(members)
    }
}

extension CacheItemEvent.Kind {
    /// The journal's and the management stream's kind: `item-` and the SDK event's name.
    public var gatewayKind: GatewayEvent.Kind {
        switch self {
        case .discovered: .itemDiscovered
        case .downloadStarted: .itemDownloadStarted
        case .progress: .itemProgress
        case .downloaded: .itemDownloaded
        case .failed: .itemFailed
        case .evicted: .itemEvicted
        case .deleted: .itemDeleted
        }
    }
}
