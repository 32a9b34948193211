/// The config file as the management API shows and takes it: the document itself (so sections
/// this version does not model are kept as written), with the token hidden on the way out and
/// put back on the way in when a client returns the hidden marker unchanged.
public enum ConfigDocument {
    public static let redactedToken = "<redacted>"

    /// `document` with `management.token` replaced by the marker.
    public static func redacted(_ document: JSONValue) -> JSONValue {
        replacingToken(document) { _ in .string(redactedToken) }
    }

    /// `document` whose token is the marker gets `current`'s token (or loses the key when
    /// `current` has none); any other document is returned as is.
    public static func restoringToken(_ document: JSONValue, from current: JSONValue?) -> JSONValue {
        guard document["management"]?["token"] == .string(redactedToken) else { return document }
        return replacingToken(document) { _ in current?["management"]?["token"] }
    }

    private static func replacingToken(_ document: JSONValue, _ replace: (JSONValue) -> JSONValue?) -> JSONValue {
        guard case .object(var root) = document, let index = root.firstIndex(where: { $0.key == "management" }),
              case .object(var management) = root[index].value,
              let tokenIndex = management.firstIndex(where: { $0.key == "token" }) else { return document }
        if let value = replace(management[tokenIndex].value) {
            management[tokenIndex].value = value
        } else {
            management.remove(at: tokenIndex)
        }
        root[index].value = .object(management)
        return .object(root)
    }

    /// The top-level settings that differ between two configs, as JSON paths (`$.license`).
    /// `$` alone means a difference this version does not name (a section added later).
    public static func changes(from old: GatewayConfig, to new: GatewayConfig) -> [String] {
        var changed: [String] = []
        if old.license != new.license { changed.append("$.license") }
        if old.network != new.network { changed.append("$.network") }
        if old.listeners != new.listeners { changed.append("$.listeners") }
        if old.managementToken != new.managementToken { changed.append("$.management.token") }
        if old.stateDirectory != new.stateDirectory { changed.append("$.stateDirectory") }
        if old.logLevel != new.logLevel { changed.append("$.logLevel") }
        if old.boardPath != new.boardPath { changed.append("$.board") }
        if old.streamers != new.streamers { changed.append("$.streamers") }
        if old.channels != new.channels { changed.append("$.channels") }
        if old.discovery != new.discovery { changed.append("$.discovery") }
        if old.fec != new.fec { changed.append("$.fec") }
        if old.records != new.records { changed.append("$.records") }   // read at start: a restart applies it
        if changed.isEmpty && old != new { changed.append("$") }
        return changed
    }
}
