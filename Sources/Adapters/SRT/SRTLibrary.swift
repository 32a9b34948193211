import CGSSRT
import CGSSRTSystem

/// libsrt as a process-wide facility: started once (srt_startup) before the first socket and
/// never cleaned up (its threads serve every socket until exit), with its log routed through the
/// shim so a listener's refusals (only ever logged by libsrt) can be read back.
public enum SRTLibrary {
    private static let started: Bool = {
        gs_srt_log_install()
        return srt_startup() >= 0
    }()

    /// Starts libsrt if it is not yet; false when it could not start.
    @discardableResult
    public static func start() -> Bool { started }

    /// The linked libsrt's version, "1.5.1".
    public static var version: String {
        let packed = srt_getversion()
        return "\(packed >> 16 & 0xff).\(packed >> 8 & 0xff).\(packed & 0xff)"
    }

    /// One of libsrt's own rejection lines: the socket it names (nil if none) and the text.
    public struct Rejection: Sendable, Equatable {
        public var socket: Int32?
        public var text: String
    }

    /// A reader of libsrt's rejection lines from where it last stopped (each reader sees every
    /// line logged after it was made, up to the last 64).
    public struct RejectionLog: Sendable {
        private var cursor: UInt = 0

        public init() {
            var socket: Int32 = 0
            var text = [CChar](repeating: 0, count: 2)
            while gs_srt_log_next_rejection(&cursor, &socket, &text, text.count) == 1 {}
        }

        /// Lines logged since the last call, oldest first.
        public mutating func next() -> [Rejection] {
            var found: [Rejection] = []
            var socket: Int32 = -1
            var text = [CChar](repeating: 0, count: 256)
            while gs_srt_log_next_rejection(&cursor, &socket, &text, text.count) == 1 {
                let line = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                found.append(Rejection(socket: socket >= 0 ? socket : nil, text: line))
            }
            return found
        }
    }
}
