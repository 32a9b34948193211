/// Reassembles PSI sections (ISO/IEC 13818-1 §2.4.4) from the payloads of one PID's packets:
/// pointer_field handling, sections spanning packets, several sections in one packet, stuffing.
/// A section is delivered whole, after its CRC_32 checked (for syntax-indicator sections).
struct PSISectionAssembler: Sendable {
    enum Output: Sendable, Equatable {
        case section([UInt8])
        case crcMismatch(tableID: UInt8)
        /// A section_length longer than the 1021 bytes PSI allows, or a start lost mid-way.
        case malformed
    }

    private var buffer: [UInt8] = []
    /// True while `buffer` holds the start of a section whose tail is still due.
    private var inSection = false

    /// Drops a partly received section (after packet loss).
    mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        inSection = false
    }

    mutating func push(payload: ArraySlice<UInt8>, unitStart: Bool, into out: inout [Output]) {
        var data = payload
        if unitStart {
            guard let pointer = data.first else { return }
            data = data.dropFirst()
            let tail = data.prefix(Int(pointer))
            if inSection {
                buffer.append(contentsOf: tail)
                drain(into: &out)
            }
            reset()
            data = data.dropFirst(Int(pointer))
            inSection = true
            buffer.append(contentsOf: data)
            drain(into: &out)
        } else if inSection {
            buffer.append(contentsOf: data)
            drain(into: &out)
        }
    }

    /// Emits every complete section at the front of `buffer`; stops at stuffing or a partial one.
    private mutating func drain(into out: inout [Output]) {
        var start = 0
        while true {
            guard start < buffer.count else { buffer.removeAll(keepingCapacity: true); inSection = false; return }
            if buffer[start] == 0xFF {  // stuffing: the rest of the packet carries no section
                buffer.removeAll(keepingCapacity: true); inSection = false; return
            }
            guard buffer.count - start >= 3 else { break }
            let length = Int(buffer[start + 1] & 0x0F) << 8 | Int(buffer[start + 2])
            guard length <= 4093 else { out.append(.malformed); reset(); return }
            let total = 3 + length
            guard buffer.count - start >= total else { break }
            let section = Array(buffer[start..<(start + total)])
            start += total
            let syntax = section[1] & 0x80 != 0
            if syntax {
                if section.count < 12 { out.append(.malformed); continue }
                if CRC32MPEG2.checksum(section) != 0 { out.append(.crcMismatch(tableID: section[0])); continue }
            }
            out.append(.section(section))
        }
        if start > 0 { buffer.removeFirst(start) }
    }
}
