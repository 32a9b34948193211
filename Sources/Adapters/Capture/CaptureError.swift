/// A libpcap call failed: the operation, libpcap's status code (PCAP_ERROR_*, or -1) and its text.
public struct CaptureError: Error, CustomStringConvertible, Sendable, Equatable {
    public let operation: String
    public let code: Int32
    public let message: String

    public init(_ operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }
}
