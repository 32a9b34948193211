/// Content codings of FLUTE files (FDT `Content-Encoding`, RFC 6726 §3.4.2, values as in
/// RFC 9110 §8.4.1): `gzip`/`x-gzip` (RFC 1952), `deflate` (zlib-wrapped, RFC 1950; raw DEFLATE
/// tolerated) and `zlib`. Decoding uses the core's `Inflate`; encoding (for `send --files
/// --file-encoding gzip`) wraps the core's `Deflate` (LZ77 + fixed Huffman).
public enum ContentCoding {
    public enum Failure: Error, Equatable, Sendable {
        /// A coding other than the ones above.
        case unsupported(String)
        /// Not a valid stream of the coding (header, data, checksum or length).
        case corrupt
        /// The decoded content would exceed the limit.
        case tooLarge
    }

    /// Whether `encoding` means no coding at all (absent, empty or `identity`).
    public static func isIdentity(_ encoding: String?) -> Bool {
        guard let encoding else { return true }
        let name = Substring(encoding).trimmingSpaces.lowercased()
        return name.isEmpty || name == "identity"
    }

    /// The content of a transport object coded with `encoding`, at most `limit` bytes.
    public static func decode(_ bytes: [UInt8], encoding: String, limit: Int) -> Result<[UInt8], Failure> {
        let name = Substring(encoding).trimmingSpaces.lowercased()
        do {
            switch name {
            case "", "identity": return .success(bytes)
            case "gzip", "x-gzip": return .success(try gunzip(bytes[...], limit: limit))
            case "zlib": return .success(try Inflate.zlib(bytes[...], limit: limit))
            case "deflate":
                if let wrapped = try? Inflate.zlib(bytes[...], limit: limit) { return .success(wrapped) }
                return .success(try Inflate.raw(bytes[...], limit: limit))
            default: return .failure(.unsupported(encoding))
            }
        } catch let failure as Failure {
            return .failure(failure)
        } catch Inflate.Failure.outputLimit {
            return .failure(.tooLarge)
        } catch {
            return .failure(.corrupt)
        }
    }

    /// RFC 1952: header (optional extra, name, comment, header CRC), DEFLATE data, CRC-32 and
    /// ISIZE of the content. One member (what HTTP and FLUTE senders produce).
    static func gunzip(_ data: ArraySlice<UInt8>, limit: Int) throws -> [UInt8] {
        let base = data.startIndex
        guard data.count >= 18, data[base] == 0x1F, data[base + 1] == 0x8B, data[base + 2] == 8 else { throw Failure.corrupt }
        let flags = data[base + 3]
        guard flags & 0xE0 == 0 else { throw Failure.corrupt }
        var offset = base + 10
        if flags & 0x04 != 0 {   // FEXTRA
            guard offset + 2 <= data.endIndex else { throw Failure.corrupt }
            offset += 2 + (Int(data[offset]) | Int(data[offset + 1]) << 8)
        }
        for bit in [UInt8(0x08), 0x10] where flags & bit != 0 {   // FNAME, FCOMMENT: zero-terminated
            while offset < data.endIndex, data[offset] != 0 { offset += 1 }
            offset += 1
        }
        if flags & 0x02 != 0 { offset += 2 }   // FHCRC
        guard offset + 8 <= data.endIndex else { throw Failure.corrupt }
        let content = try Inflate.raw(data[offset..<(data.endIndex - 8)], limit: limit)
        let trailer = data.endIndex - 8
        let crc = littleEndian32(data, at: trailer), size = littleEndian32(data, at: trailer + 4)
        guard crc32(content) == crc, UInt32(truncatingIfNeeded: content.count) == size else { throw Failure.corrupt }
        return content
    }

    private static func littleEndian32(_ data: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        UInt32(data[index]) | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2]) << 16 | UInt32(data[index + 3]) << 24
    }

    /// The gzip member of `content` (no name, mtime 0, OS 3 = Unix), DEFLATE-compressed.
    public static func gzip(_ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        let zlib = Deflate.zlib(content)   // 2-byte header, raw DEFLATE, 4-byte Adler-32
        out.append(contentsOf: zlib[2..<(zlib.count - 4)])
        for value in [crc32(content), UInt32(truncatingIfNeeded: content.count)] {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
        }
        return out
    }

    /// CRC-32 (IEEE 802.3, reflected 0xEDB88320), as gzip's trailer uses.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}
