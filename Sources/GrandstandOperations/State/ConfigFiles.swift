#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GrandstandCore

/// Reads the gateway's configuration file and the board description it names (`$.board`),
/// for `run` and the diagnostic commands; a rejection says which file and why (the decoder's
/// JSON path and reason), and the caller exits 78 (EX_CONFIG).
public enum ConfigFiles {
    public struct Rejection: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The configuration at `path`.
    public static func gateway(_ path: String) throws(Rejection) -> GatewayConfig {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw Rejection(description: "cannot read configuration \(path)")
        }
        do {
            return try GatewayConfig.decode(Array(bytes))
        } catch {
            throw Rejection(description: "configuration \(path) rejected:\n\(error)")
        }
    }

    /// The configuration at `path` and the board description it names, nil when it names none.
    public static func gatewayAndBoard(_ path: String) throws(Rejection) -> (GatewayConfig, BoardDescription?) {
        let config = try gateway(path)
        guard let boardPath = config.boardPath else { return (config, nil) }
        guard let boardBytes = FileManager.default.contents(atPath: boardPath) else {
            throw Rejection(description: "cannot read board description \(boardPath) (from $.board)")
        }
        do {
            return (config, try BoardDescription.decode(Array(boardBytes)))
        } catch {
            throw Rejection(description: "board description \(boardPath) rejected:\n\(error)")
        }
    }
}
