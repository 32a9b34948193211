/// Recording names: they become file names under the records directory and URL path segments
/// (`/records/NAME.ts`), so only `A-Z a-z 0-9 . _ -`, 1–64 characters, starting with a letter
/// or digit (no `..`, no `/`, no hidden files).
public enum RecordName {
    public static func problem(_ name: String) -> String? {
        guard (1...64).contains(name.utf8.count) else { return "a record name has 1 to 64 characters" }
        guard let first = name.unicodeScalars.first, isAlphanumeric(first) else {
            return "a record name starts with a letter or digit"
        }
        guard name.unicodeScalars.allSatisfy({ isAlphanumeric($0) || $0 == "." || $0 == "_" || $0 == "-" }) else {
            return "a record name has only letters, digits, '.', '_' and '-'"
        }
        guard !name.contains("..") else { return "a record name has no '..'" }
        return nil
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}

/// A recording's state as listed and logged: recording, then stopped (by request) or failed
/// (disk full, channel gone, write error — with the reason).
public enum RecordState: Sendable, Equatable {
    case recording
    case stopped
    case failed(String)

    public var name: String {
        switch self {
        case .recording: "recording"
        case .stopped: "stopped"
        case .failed: "failed"
        }
    }
}
