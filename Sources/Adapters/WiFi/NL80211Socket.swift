import CGSNetlink
#if canImport(Glibc)
import Glibc
#endif

/// A generic netlink socket (libnl `nl_sock`) for nl80211 queries; freed on deinit.
/// Not Sendable: an nl_sock and its sequence numbers belong to one owner (task or actor).
public final class NL80211Socket {
    let socket: OpaquePointer
    private var nl80211: Int32?

    /// Allocates and connects the socket. Throws `netlinkUnavailable` where NETLINK_GENERIC
    /// cannot be opened (qemu-user), `netlink` if allocation fails.
    public init() throws {
        guard let socket = nl_socket_alloc() else {
            throw WiFiError.netlink(operation: "allocating a netlink socket", code: NLE_NOMEM, errno: ENOMEM)
        }
        errno = 0
        let err = genl_connect(socket)
        if err < 0 {
            let savedErrno = errno
            nl_socket_free(socket)
            throw WiFiError.netlinkUnavailable(code: -err, errno: savedErrno)
        }
        // nl80211 station replies (TID stats, rate info) can exceed libnl's default buffer: peek
        // the size first. A receive deadline keeps a lost reply from blocking the caller forever.
        nl_socket_enable_msg_peek(socket)
        var deadline = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(nl_socket_get_fd(socket), SOL_SOCKET, SO_RCVTIMEO, &deadline, socklen_t(MemoryLayout<timeval>.size))
        self.socket = socket
    }

    deinit { nl_socket_free(socket) }

    /// The numeric id of generic netlink family `name` ("nlctrl" is always 0x10).
    public func resolveFamily(_ name: String) throws -> Int32 {
        let id = genl_ctrl_resolve(socket, name)
        if id >= 0 { return id }
        if -id == NLE_OBJ_NOTFOUND { throw WiFiError.familyNotFound(name) }
        throw WiFiError.netlink(operation: "resolving generic netlink family \(name)", code: -id, errno: 0)
    }

    /// nl80211's family id, resolved once. Throws `familyNotFound("nl80211")` without cfg80211.
    public func nl80211Family() throws -> Int32 {
        if let nl80211 { return nl80211 }
        let id = try resolveFamily("nl80211")
        nl80211 = id
        return id
    }

    /// Sends one nl80211 dump request and hands each reply's attributes to `each`.
    func dump(_ command: nl80211_commands, ifindex: UInt32? = nil, operation: String,
              each: @escaping (NetlinkAttributes) -> Void) throws {
        let family = try nl80211Family()
        func failure(_ code: Int32, _ errno: Int32 = 0) -> WiFiError {
            .netlink(operation: operation, code: code, errno: errno)
        }
        guard let message = nlmsg_alloc() else { throw failure(NLE_NOMEM) }
        defer { nlmsg_free(message) }
        guard genlmsg_put(message, UInt32(NL_AUTO_PORT), UInt32(NL_AUTO_SEQ), family, 0,
                          NLM_F_DUMP, UInt8(command.rawValue), 0) != nil else { throw failure(NLE_NOMEM) }
        if let ifindex {
            let err = nla_put_u32(message, Int32(NL80211_ATTR_IFINDEX.rawValue), ifindex)
            if err < 0 { throw failure(-err) }
        }
        guard let callbacks = nl_cb_alloc(NL_CB_DEFAULT) else { throw failure(NLE_NOMEM) }
        defer { nl_cb_put(callbacks) }
        let collector = DumpCollector(each: each)
        let context = Unmanaged.passUnretained(collector).toOpaque()
        nl_cb_set(callbacks, NL_CB_VALID, NL_CB_CUSTOM, dumpValidHandler, context)
        nl_cb_set(callbacks, NL_CB_FINISH, NL_CB_CUSTOM, dumpFinishHandler, context)
        nl_cb_err(callbacks, NL_CB_CUSTOM, dumpErrorHandler, context)

        var err = nl_send_auto(socket, message)
        if err < 0 { throw failure(-err) }
        err = withExtendedLifetime(collector) { nl_recvmsgs(socket, callbacks) }
        if err < 0 { throw failure(-err, collector.kernelErrno) }
        // A dump the kernel refused (e.g. ENODEV) still ends in NLMSG_DONE; libnl calls it success.
        if collector.kernelErrno != 0 { throw failure(nl_syserr2nlerr(collector.kernelErrno), collector.kernelErrno) }
    }
}

// The C callbacks are plain functions (no captures): they reach the dump through `void *arg`.

/// What a dump's C callbacks reach through their `void *arg`.
private final class DumpCollector {
    let each: (NetlinkAttributes) -> Void
    /// errno from the kernel's NLMSG_ERROR reply, 0 if none came.
    var kernelErrno: Int32 = 0
    init(each: @escaping (NetlinkAttributes) -> Void) { self.each = each }
}

private func collector(_ arg: UnsafeMutableRawPointer?) -> DumpCollector? {
    arg.map { Unmanaged<DumpCollector>.fromOpaque($0).takeUnretainedValue() }
}

/// NL_CB_VALID: one reply of the dump.
private func dumpValidHandler(_ message: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    guard let message, let header = nlmsg_hdr(message), let collector = collector(arg) else {
        return Int32(NL_SKIP.rawValue)
    }
    collector.each(NetlinkAttributes(genericMessage: header, maxType: NL80211_ATTR_MAX.rawValue))
    return Int32(NL_OK.rawValue)
}

/// NLMSG_DONE: its payload is the dump's final status (0, or -errno if the kernel refused it).
private func dumpFinishHandler(_ message: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> Int32 {
    if let message, let header = nlmsg_hdr(message), let collector = collector(arg),
       header.pointee.nlmsg_len >= UInt32(MemoryLayout<nlmsghdr>.size + MemoryLayout<Int32>.size) {
        let status = nlmsg_data(header).loadUnaligned(as: Int32.self)
        if status < 0 { collector.kernelErrno = -status }
    }
    return Int32(NL_STOP.rawValue)
}

/// NLMSG_ERROR: keep the kernel's errno, stop; nl_recvmsgs then returns libnl's code for it.
private func dumpErrorHandler(_ address: UnsafeMutablePointer<sockaddr_nl>?, _ error: UnsafeMutablePointer<nlmsgerr>?,
                              _ arg: UnsafeMutableRawPointer?) -> Int32 {
    if let error, let collector = collector(arg) { collector.kernelErrno = -error.pointee.error }
    return Int32(NL_STOP.rawValue)
}
