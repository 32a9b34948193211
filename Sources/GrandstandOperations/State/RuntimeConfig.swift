import GrandstandCore
import GrandstandRuntime
import Synchronization
import Systemd
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's configuration while it runs: `GET/PUT /api/v1/config` and SIGHUP go through
/// here. A new config is validated (JSON-path issues), written atomically over the file, and
/// applied at once where that is possible (log level, management token); the rest is reported
/// as needing a restart. RELOADING=1 … READY=1 bracket every application (sd_notify).
public final class RuntimeConfig: Sendable {
    public struct Outcome: Sendable {
        var changed: [String]
        var applied: [String]
        var restartRequired: [String]

        public var json: JSONValue {
            .object([("changed", .array(changed.map(JSONValue.string))), ("applied", .array(applied.map(JSONValue.string))),
                     ("restartRequired", .array(restartRequired.map(JSONValue.string)))])
        }
    }

    /// Why a new config was refused: the issues (400) or the file could not be read/written (500).
    public enum Rejection: Error, CustomStringConvertible {
        case invalid([JSONIssue])
        case file(StateFileError)
        case noFile

        public var description: String {
            switch self {
            case .invalid(let issues): issues.map(\.description).joined(separator: "\n")
            case .file(let error): "\(error)"
            case .noFile: "the daemon runs without a configuration file"
            }
        }
    }

    /// Settings applied without a restart (ingest settings too when an applier is installed).
    static let liveSettings: Set<String> = ["$.logLevel", "$.management.token"]

    /// Starts a pipeline with the new ingest settings; returns nil, or why it could not.
    /// Set once by the daemon before requests arrive.
    public var ingestApplier: (@Sendable (GatewayConfig) -> String?)? {
        get { state.withLock { $0.ingestApplier } }
        set { state.withLock { $0.ingestApplier = newValue } }
    }

    let path: String?
    public let events: EventLog
    let notifier: Notifier
    /// Held for a whole replace or reload: one application at a time, in order.
    private struct State {
        var current: GatewayConfig
        var token: String
        var status: @Sendable () -> String = { "" }
        var ingestApplier: (@Sendable (GatewayConfig) -> String?)?
    }
    private let state: Mutex<State>

    public init(config: GatewayConfig, token: String, path: String?, events: EventLog, notifier: Notifier = Notifier()) {
        state = Mutex(State(current: config, token: token))
        self.path = path
        self.events = events
        self.notifier = notifier
        events.level = config.logLevel
    }

    var config: GatewayConfig { state.withLock { $0.current } }
    public var token: String { state.withLock { $0.token } }

    /// The STATUS= line sent with READY=1 after a reload.
    public func statusLine(_ line: @escaping @Sendable () -> String) { state.withLock { $0.status = line } }

    /// The file's document with the token hidden.
    public func document() -> Result<JSONValue, Rejection> {
        guard let path else { return .failure(.noFile) }
        do {
            guard let bytes = try AtomicFile.read(path) else {
                return .failure(.file(StateFileError(operation: "open", path: path, errno: ENOENT)))
            }
            return .success(ConfigDocument.redacted(try JSONParser.parse(bytes)))
        } catch let error as StateFileError {
            return .failure(.file(error))
        } catch {
            return .failure(.invalid([JSONIssue(path: .root, reason: "the file on disk is not valid JSON: \(error)")]))
        }
    }

    /// `PUT /api/v1/config`: validates `body`, writes it over the file, applies it.
    public func replace(with body: [UInt8]) -> Result<Outcome, Rejection> {
        guard let path else { return .failure(.noFile) }
        return state.withLock { state in
            let document: JSONValue
            do {
                document = try JSONParser.parse(body)
            } catch {
                return .failure(.invalid([JSONIssue(path: .root, reason: "not valid JSON: \(error)")]))
            }
            let onDisk = (try? AtomicFile.read(path)).flatMap { $0 }.flatMap { try? JSONParser.parse($0) }
            let text = ConfigDocument.restoringToken(document, from: onDisk).encoded + "\n"
            let config: GatewayConfig
            switch Self.validate(Array(text.utf8)) {
            case .failure(let issues): return .failure(.invalid(issues.issues))
            case .success(let valid): config = valid
            }
            var mode: mode_t = 0o640
            var info = stat()
            if stat(path, &info) == 0 { mode = info.st_mode & 0o777 }
            do throws(StateFileError) {
                try AtomicFile.write(Array(text.utf8), to: path, mode: mode)
            } catch {
                return .failure(.file(error))
            }
            return .success(apply(config, to: &state, how: "replaced through the management API"))
        }
    }

    /// SIGHUP: re-reads the file; a bad file changes nothing and is logged.
    public func reload() -> Result<Outcome, Rejection> {
        guard let path else { return .failure(.noFile) }
        return state.withLock { state in
            let bytes: [UInt8]
            do throws(StateFileError) {
                guard let read = try AtomicFile.read(path) else {
                    return .failure(.file(StateFileError(operation: "open", path: path, errno: ENOENT)))
                }
                bytes = read
            } catch {
                return .failure(.file(error))
            }
            switch Self.validate(bytes) {
            case .failure(let problems):
                let issues = problems.issues
                events.record(GatewayEvent(.configRejected, "configuration \(path) rejected on reload, keeping the running one:\n"
                                           + issues.map(\.description).joined(separator: "\n"), fields: [("CONFIG", path)]))
                return .failure(.invalid(issues))
            case .success(let config):
                return .success(apply(config, to: &state, how: "re-read"))
            }
        }
    }

    /// The config, and the board file it names, both valid; else every issue.
    static func validate(_ bytes: [UInt8]) -> Result<GatewayConfig, ConfigIssues> {
        let config: GatewayConfig
        do {
            config = try GatewayConfig.decode(bytes)
        } catch {
            return .failure(ConfigIssues(error.issues))
        }
        if let board = config.boardPath {
            guard let boardBytes = (try? AtomicFile.read(board)).flatMap({ $0 }) else {
                return .failure(ConfigIssues([JSONIssue(path: "$.board", reason: "cannot read board description \(board)")]))
            }
            do {
                _ = try BoardDescription.decode(boardBytes)
            } catch {
                return .failure(ConfigIssues([JSONIssue(path: "$.board", reason: "board description \(board) rejected: \(error)")]))
            }
        }
        return .success(config)
    }

    /// Applies a valid config to the state (the caller holds the lock).
    private func apply(_ config: GatewayConfig, to state: inout State, how: String) -> Outcome {
        _ = try? notifier.notify(.reloading)
        let changed = ConfigDocument.changes(from: state.current, to: config)
        var outcome = Outcome(changed: changed, applied: [], restartRequired: [])
        let ingestChanges = changed.filter { IngestReconfiguration.sections.contains($0) }
        if !ingestChanges.isEmpty {
            if let ingestApplier = state.ingestApplier, ingestApplier(config) == nil {
                outcome.applied += ingestChanges
            } else {
                outcome.restartRequired += ingestChanges
            }
        }
        for setting in changed where !IngestReconfiguration.sections.contains(setting) {
            guard Self.liveSettings.contains(setting) else {
                outcome.restartRequired.append(setting)
                continue
            }
            switch setting {
            case "$.logLevel":
                events.level = config.logLevel
            case "$.management.token":
                guard let resolved = try? TokenStore.resolve(config) else {
                    outcome.restartRequired.append(setting)
                    continue
                }
                state.token = resolved.token
            default:
                break
            }
            outcome.applied.append(setting)
        }
        state.current = config
        let summary = changed.isEmpty ? "no changes" : "applied: \(outcome.applied.joined(separator: ", "))"
            + (outcome.restartRequired.isEmpty ? "" : "; restart required for: \(outcome.restartRequired.joined(separator: ", "))")
        events.record(GatewayEvent(.reloaded, "configuration \(path ?? "-") \(how): \(summary)", fields: [
            ("CHANGED", changed.joined(separator: " ")), ("RESTART_REQUIRED", outcome.restartRequired.joined(separator: " ")),
        ]))
        _ = try? notifier.notify(.ready, .status(state.status()))
        return outcome
    }
}

/// Config issues as an error value (for `Result`).
struct ConfigIssues: Error {
    let issues: [JSONIssue]
    init(_ issues: [JSONIssue]) { self.issues = issues }
}
