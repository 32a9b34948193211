// `fec-bench --emit-2022 DIR`: writes a stream protected by our SMPTE 2022-1 encoder, with
// chosen media packets dropped, for tools/fixtures/gst-fecdec-interop.sh to replay into
// GStreamer's rtpst2022-1-fecdec. Files: send.bin (records: port, length, packet — big-endian
// 16-bit each — in send order, drops applied) and expected.bin (every media packet, RFC 4571
// framing: length, packet).
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

func emitSMPTE2022Interop(directory: String) {
    let columns = 4, rows = 3, count = 60
    let dropped: Set = [13, 17, 18, 30, 41, 45]
    var encoder = SMPTE2022Encoder(configuration: .init(columns: columns, rows: rows))
    var send: [UInt8] = [], expected: [UInt8] = []
    func record(_ port: UInt16?, _ packet: [UInt8], into out: inout [UInt8]) {
        if let port { out += [UInt8(port >> 8), UInt8(port & 0xFF)] }
        out += [UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)]
        out += packet
    }
    for i in 0..<count {
        // SSRC 0, as GStreamer's encoder requires of its input; 90 kHz timestamps 40 ms apart.
        var packet = rtpTS(i + 1000)
        packet.replaceSubrange(8..<12, with: [0, 0, 0, 0])
        let ts = UInt32(3600 * i)
        packet.replaceSubrange(4..<8, with: [UInt8(ts >> 24), UInt8(ts >> 16 & 0xFF), UInt8(ts >> 8 & 0xFF), UInt8(ts & 0xFF)])
        record(nil, packet, into: &expected)
        let fec = encoder.add(packet)
        if !dropped.contains(i) { record(5000, packet, into: &send) }
        for f in fec.row { record(5004, f, into: &send) }
        for f in fec.column { record(5002, f, into: &send) }
    }
    for f in encoder.flush().column { record(5002, f, into: &send) }
    for (name, bytes) in [("send.bin", send), ("expected.bin", expected)] {
        guard let file = fopen(directory + "/" + name, "wb") else {
            print("cannot write \(directory)/\(name): errno \(errno)")
            exit(1)
        }
        _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    print("wrote \(count) media packets (\(dropped.count) dropped: \(dropped.sorted())), L=\(columns) D=\(rows), to \(directory)")
}
