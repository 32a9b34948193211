/// Facts about this build that `grandstand version` reports; filled in by the executable.
public struct BuildInfo: Sendable, Equatable {
    public var version: String
    public var gitCommit: String
    public var swiftVersion: String
    /// Versions of the C libraries linked, keyed by library name (e.g. "libpcap").
    public var libraries: [String: String]

    public init(version: String, gitCommit: String, swiftVersion: String, libraries: [String: String]) {
        self.version = version
        self.gitCommit = gitCommit
        self.swiftVersion = swiftVersion
        self.libraries = libraries
    }
}

extension BuildInfo {
    /// What a build without a stamp (a plain `swift build`) calls itself (CGSBuildStamp's default).
    public static let developmentVersion = "0.0.0-dev"

    /// Human-readable lines, libraries sorted by name.
    public var text: String {
        var lines = ["grandstand \(version) (commit \(gitCommit), Swift \(swiftVersion))"]
        for name in libraries.keys.sorted() { lines.append("  \(name): \(libraries[name] ?? "")") }
        return lines.joined(separator: "\n") + "\n"
    }

    public var json: JSONValue {
        .object([
            ("version", .string(version)), ("gitCommit", .string(gitCommit)), ("swiftVersion", .string(swiftVersion)),
            ("libraries", .object(libraries.keys.sorted().map { ($0, .string(libraries[$0] ?? "")) })),
        ])
    }
}
