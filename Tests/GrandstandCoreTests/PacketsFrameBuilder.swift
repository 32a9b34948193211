@testable import GrandstandCore

/// Builds link/IP/UDP frames for decoder tests, with correct IPv4 header checksums.
enum FrameBuilder {
    static func v4(_ text: String) -> [UInt8] { text.split(separator: ".").map { UInt8($0) ?? 0 } }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func udp(sourcePort: Int, destinationPort: Int, payload: [UInt8]) -> [UInt8] {
        var bytes = be16(sourcePort)
        bytes += be16(destinationPort)
        bytes += be16(8 + payload.count)
        bytes += [0, 0]
        return bytes + payload
    }

    static func ipv4(source: String, destination: String, proto: UInt8 = 17, ttl: UInt8 = 16, fragment: Int = 0x4000,
                     options: [UInt8] = [], segment: [UInt8]) -> [UInt8] {
        let headerLength = 20 + options.count
        var header: [UInt8] = [0x40 | UInt8(headerLength / 4), 0]
        header += be16(headerLength + segment.count)
        header += [0, 1]
        header += be16(fragment)
        header += [ttl, proto, 0, 0]
        header += v4(source)
        header += v4(destination)
        header += options
        let sum = ~FrameDecoder.internetChecksum(header[...])
        header[10] = UInt8(sum >> 8)
        header[11] = UInt8(sum & 0xFF)
        return header + segment
    }

    static func ipv6(source: [UInt8], destination: [UInt8], next: UInt8 = 17, hopLimit: UInt8 = 8,
                     payload: [UInt8]) -> [UInt8] {
        var packet: [UInt8] = [0x60, 0, 0, 0]
        packet += be16(payload.count)
        packet += [next, hopLimit]
        packet += source
        packet += destination
        return packet + payload
    }

    static func ethernet(_ packet: [UInt8], etherType: Int = 0x0800, vlans: [Int] = []) -> [UInt8] {
        var frame: [UInt8] = [0x01, 0x00, 0x5E, 0x7F, 0x14, 0x01, 0x02, 0, 0, 0, 0, 1]
        for vid in vlans { frame += [0x81, 0x00] + be16(vid) }
        return frame + be16(etherType) + packet
    }

    /// 239.255.20.1:5000 from 10.1.2.3:40000 carrying `payload`, as an Ethernet frame.
    static func multicastFrame(_ payload: [UInt8], vlans: [Int] = []) -> [UInt8] {
        ethernet(ipv4(source: "10.1.2.3", destination: "239.255.20.1",
                      segment: udp(sourcePort: 40000, destinationPort: 5000, payload: payload)), vlans: vlans)
    }
}
