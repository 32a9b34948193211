/// One UDP datagram taken out of a captured frame: who sent it, where to (a multicast group or a
/// unicast address), its payload (a slice of the frame, not a copy) and the capture time.
public struct Datagram: Sendable, Equatable {
    public var source: Endpoint
    public var destination: Endpoint
    public var payload: ArraySlice<UInt8>
    /// Capture time in nanoseconds since the Unix epoch, as the capture adapter reported it.
    public var timestampNanoseconds: Int64
    /// IPv4 TTL or IPv6 hop limit as received.
    public var hopLimit: UInt8

    public init(source: Endpoint, destination: Endpoint, payload: ArraySlice<UInt8>,
                timestampNanoseconds: Int64, hopLimit: UInt8) {
        self.source = source
        self.destination = destination
        self.payload = payload
        self.timestampNanoseconds = timestampNanoseconds
        self.hopLimit = hopLimit
    }
}
