// FrameDecoder over each LinkLayer: the first byte picks the link type, the rest is the frame.
@testable import GrandstandCore

let links: [LinkLayer] = [.ethernet, .linuxCooked, .linuxCooked2, .raw, .null]

func fuzzOne(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let frame = bytes[1...]
    let link = links[Int(first) % links.count]
    if case .success(let datagram) = FrameDecoder.decode(frame, link: link, timestampNanoseconds: 1) {
        require(datagram.payload.count <= frame.count - 8, "UDP payload inside the frame")
        require(frame.indices.contains(datagram.payload.startIndex) || datagram.payload.isEmpty, "payload indices in frame")
    }
}
