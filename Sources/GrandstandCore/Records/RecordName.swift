/// Recording names: they become file names under the records directory and URL path segments
/// (`/records/NAME.ts`), so only `A-Z a-z 0-9 . _ -`, 1–64 characters, starting with a letter
/// or digit (no `..`, no `/`, no hidden files).
public enum RecordName {
    public static let maximumLength = 64

    public static func problem(_ name: String) -> String? {
        guard (1...maximumLength).contains(name.utf8.count) else { return "a record name has 1 to 64 characters" }
        guard let first = name.unicodeScalars.first, isAlphanumeric(first) else {
            return "a record name starts with a letter or digit"
        }
        guard name.unicodeScalars.allSatisfy({ isAlphanumeric($0) || $0 == "." || $0 == "_" || $0 == "-" }) else {
            return "a record name has only letters, digits, '.', '_' and '-'"
        }
        guard !name.contains("..") else { return "a record name has no '..'" }
        return nil
    }

    /// The name of an automatic recording of `channel` started at `wallNanoseconds` (UTC):
    /// `CHANNEL-YYYYMMDD-HHMMSS`, with `-2`, `-3`, … appended while `taken` says the name (or a
    /// file of it) exists — an automatic recording never reuses a name. The channel part is
    /// shortened so the whole stays within 64 characters.
    public static func automatic(channel: String, wallNanoseconds: Int64, taken: (String) -> Bool) -> String {
        let stamp = RFC3339.format(nanoseconds: wallNanoseconds, fractionDigits: 0)   // 2026-11-26T22:50:00Z
        let digits = stamp.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init)
        let time = String(digits.prefix(8)) + "-" + String(digits.dropFirst(8).prefix(6))
        var base = channel.unicodeScalars.filter { isAlphanumeric($0) || $0 == "-" || $0 == "_" || $0 == "." }.map(Character.init)
        while base.first.map({ !isAlphanumeric($0.unicodeScalars.first!) }) == true { base.removeFirst() }
        var channelPart = String(base)
        if channelPart.isEmpty { channelPart = "record" }
        var n = 1
        while true {
            let suffix = n == 1 ? "" : "-\(n)"
            let room = maximumLength - time.count - 1 - suffix.count
            var head = String(channelPart.prefix(room))
            while head.hasSuffix(".") { head.removeLast() }
            let name = head + "-" + time + suffix
            if !taken(name) { return name }
            n += 1
        }
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}

/// A recording's state as listed and logged: `recording`, then `stopped` (by request),
/// `completed` (the stream ended: the channel's SAP deletion or its program's end) or `failed`
/// with a reason (`interrupted`, `disk-full`, `channel-gone`, or a write error's text).
public enum RecordState: Sendable, Equatable {
    case recording
    case stopped
    case completed
    case failed(String)

    /// Reasons of `failed` (docs/records.md).
    public static let interrupted = "interrupted", diskFull = "disk-full", channelGone = "channel-gone"

    public var name: String {
        switch self {
        case .recording: "recording"
        case .stopped: "stopped"
        case .completed: "completed"
        case .failed: "failed"
        }
    }

    /// The failure reason, nil unless failed.
    public var reason: String? { if case .failed(let why) = self { why } else { nil } }

    /// How a recording ends when its channel leaves the list: a stream that ended (SAP deletion,
    /// or a multiplex program's end) completes it; a channel that timed out, was refused or was
    /// replaced by a new announcement fails it (`channel-gone`).
    public static func ending(removal: ChannelChange.RemovalReason?) -> RecordState {
        switch removal {
        case .deleted?, .ended?: .completed
        default: .failed(channelGone)
        }
    }

    /// The state a stored state name stands for; a recording still `recording` on disk was cut
    /// by a crash or power loss, so it loads as `failed: interrupted`.
    public static func loaded(name: String, reason: String?) -> RecordState {
        switch name {
        case "stopped": .stopped
        case "completed": .completed
        case "failed": .failed(reason ?? interrupted)
        default: .failed(interrupted)
        }
    }
}
