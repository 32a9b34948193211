/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, as in iSCSI/SCTP; check value of
/// "123456789" is 0xE3069283). Guards repair symbols: a corrupted repair would otherwise
/// rebuild a wrong packet that still looks well-formed.
enum CRC32C {
    static let table: [UInt32] = (0..<256).map { byte -> UInt32 in
        var crc = UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        }
        return ~crc
    }
}
