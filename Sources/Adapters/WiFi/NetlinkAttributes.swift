import CGSNetlink

/// One message's (or nested attribute's) attributes indexed by type, with length-checked reads.
/// Points into libnl's receive buffer: use it only inside the message callback.
struct NetlinkAttributes {
    private var table: [UnsafeMutablePointer<nlattr>?]

    /// The top-level attributes of a generic netlink message (after the genl header).
    init(genericMessage header: UnsafeMutablePointer<nlmsghdr>, maxType: UInt32) {
        let genl = nlmsg_data(header).assumingMemoryBound(to: genlmsghdr.self)
        self.init(head: genlmsg_attrdata(genl, 0), length: genlmsg_attrlen(genl, 0), maxType: maxType)
    }

    /// The attributes nested inside `attribute`, or nil if it is absent.
    init?(nestedIn attribute: UnsafeMutablePointer<nlattr>?, maxType: UInt32) {
        guard let attribute else { return nil }
        self.init(head: nla_data(attribute).assumingMemoryBound(to: nlattr.self),
                  length: nla_len(attribute), maxType: maxType)
    }

    private init(head: UnsafeMutablePointer<nlattr>?, length: Int32, maxType: UInt32) {
        table = Array(repeating: nil, count: Int(maxType) + 1)
        // No policy: attributes are only indexed here; every read below checks the length.
        _ = table.withUnsafeMutableBufferPointer { nla_parse($0.baseAddress, Int32(maxType), head, length, nil) }
    }

    subscript<Key: RawRepresentable>(_ key: Key) -> UnsafeMutablePointer<nlattr>? where Key.RawValue == UInt32 {
        Int(key.rawValue) < table.count ? table[Int(key.rawValue)] : nil
    }

    func bytes<Key: RawRepresentable>(_ key: Key) -> [UInt8]? where Key.RawValue == UInt32 {
        guard let attribute = self[key] else { return nil }
        let length = Int(nla_len(attribute))
        return Array(UnsafeRawBufferPointer(start: nla_data(attribute), count: max(0, length)))
    }

    func u8<Key: RawRepresentable>(_ key: Key) -> UInt8? where Key.RawValue == UInt32 { integer(key) }
    func u16<Key: RawRepresentable>(_ key: Key) -> UInt16? where Key.RawValue == UInt32 { integer(key) }
    func u32<Key: RawRepresentable>(_ key: Key) -> UInt32? where Key.RawValue == UInt32 { integer(key) }
    func u64<Key: RawRepresentable>(_ key: Key) -> UInt64? where Key.RawValue == UInt32 { integer(key) }

    /// A NUL-terminated string attribute (interface names).
    func string<Key: RawRepresentable>(_ key: Key) -> String? where Key.RawValue == UInt32 {
        bytes(key).map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Netlink integers are host-endian; an attribute too short for `T` reads as absent.
    private func integer<T: FixedWidthInteger, Key: RawRepresentable>(_ key: Key) -> T? where Key.RawValue == UInt32 {
        guard let attribute = self[key], Int(nla_len(attribute)) >= MemoryLayout<T>.size else { return nil }
        return UnsafeRawPointer(nla_data(attribute)).loadUnaligned(as: T.self)
    }
}
