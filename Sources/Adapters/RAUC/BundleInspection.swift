import CGSSystemd

/// RAUC's `InspectBundle(s bundle, a{sv} args) -> a{sv} info` (RAUC ≥ 1.6, docs "D-Bus API"):
/// RAUC opens the bundle and checks its CMS signature against the keyring before it answers, so
/// a bundle it describes is one this box trusts. The answer: `manifest-hash`, and the
/// manifest's `[update]` group (`compatible`, `version`, `description`, `build`).
public struct BundleInfo: Sendable, Equatable {
    /// SHA-256 of the signed manifest: the bundle's identity.
    public var manifestHash: String
    public var compatible: String
    public var version: String
    /// Every fact RAUC gave, nested groups flattened (`update.build`, `bundle.format`, …).
    public var facts: [String: String]

    public init(facts: [String: String]) {
        self.facts = facts
        manifestHash = facts["manifest-hash"] ?? ""
        compatible = facts["update.compatible"] ?? ""
        version = facts["update.version"] ?? ""
    }
}

extension RAUCInstaller {
    /// Inspects (and so verifies) the bundle at `path`; throws RAUC's refusal (a bad signature,
    /// a damaged or unknown format) as the `BusError`'s message. A RAUC older than
    /// `InspectBundle` (Debian bookworm's 1.8) answers the legacy `Info(s) -> (compatible,
    /// version)` instead, which verifies the same way but gives no manifest hash.
    public func inspectBundle(_ path: String) throws(BusError) -> BundleInfo {
        let inspected = Result { () throws(BusError) -> BundleInfo in try inspect(path, method: "InspectBundle") }
        switch inspected {
        case .success(let info): return info
        case .failure(let error) where error.name == "org.freedesktop.DBus.Error.UnknownMethod": return try inspect(path, method: "Info")
        case .failure(let error): throw error
        }
    }

    private func inspect(_ path: String, method: String) throws(BusError) -> BundleInfo {
        var facts: [String: String] = [:]
        try call(method) { (message: OpaquePointer) throws(BusError) in
            try BusError.check(path.withCString { sd_bus_message_append_basic(message, Self.type("s"), $0) }, "\(method) bundle")
            guard method == "InspectBundle" else { return }
            try BusError.check(sd_bus_message_open_container(message, Self.type("a"), "{sv}"), "InspectBundle args")
            try BusError.check(sd_bus_message_close_container(message), "InspectBundle args")
        } read: { (reply: OpaquePointer) throws(BusError) in
            if method == "InspectBundle" {
                facts = try Self.readDictionary(reply)
            } else {
                facts["update.compatible"] = try Self.readString(reply)
                facts["update.version"] = try Self.readString(reply)
            }
        }
        return BundleInfo(facts: facts)
    }
}
