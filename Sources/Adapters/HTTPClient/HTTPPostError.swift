#if canImport(Glibc)
import Glibc
#endif

/// A failed report POST: the step that failed, with errno (or the resolver's EAI_* code), or a
/// malformed answer. Every case means "retry later" to the uploader.
public enum HTTPPostError: Error, Equatable, Sendable, CustomStringConvertible {
    /// getaddrinfo failed: EAI_* code and its text.
    case resolve(host: String, code: Int32)
    /// A socket call failed (`operation` names it: "connect to 10.0.0.1:80", "send", …).
    case system(operation: String, errno: Int32)
    /// No complete answer within the deadline.
    case timedOut(operation: String)
    /// The server answered something that is not an HTTP/1.x response.
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .resolve(let host, let code):
            return "resolving \(host): \(String(cString: gai_strerror(code)))"
        case .system(let operation, let errno):
            return "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
        case .timedOut(let operation):
            return "\(operation): timed out"
        case .malformedResponse(let why):
            return "malformed HTTP response: \(why)"
        }
    }
}
