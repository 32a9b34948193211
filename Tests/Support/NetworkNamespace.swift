import Foundation
#if canImport(Glibc)
import Glibc
#endif

@_silgen_name("setns") private func c_setns(_ fd: Int32, _ nstype: Int32) -> Int32
private let cloneNewNet: Int32 = 0x4000_0000 // CLONE_NEWNET (sched.h, _GNU_SOURCE only)

/// A command of a test helper failed: what ran, its exit status and its output.
public struct TestCommandError: Error, CustomStringConvertible {
    public let command: [String]
    public let status: Int32
    public let output: String
    public var description: String { "\(command.joined(separator: " ")) exited \(status): \(output)" }
}

/// Runs a program and returns its standard output and error together; throws on a non-zero exit.
@discardableResult
public func runCommand(_ command: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let output = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw TestCommandError(command: command, status: process.terminationStatus, output: output)
    }
    return output
}

/// A throwaway network namespace (`ip netns add`, needs root) so tests of kernel networking —
/// live capture, IGMP/MLD joins, interfaces going down — touch nothing of the host. Deleted on
/// deinit. `enter` switches only the calling thread into it (network namespaces are per thread),
/// so run synchronous code there: sockets and pcap handles opened inside stay bound to it.
public final class NetworkNamespace {
    public let name: String
    private static let counter = Counter()

    public init(prefix: String = "gs-test") throws {
        name = "\(prefix)-\(getpid())-\(NetworkNamespace.counter.next())"
        try runCommand(["ip", "netns", "add", name])
        try ip("link", "set", "lo", "up")
    }

    deinit { _ = try? runCommand(["ip", "netns", "del", name]) }

    /// `ip -n NAME ARGS…`
    @discardableResult
    public func ip(_ arguments: String...) throws -> String {
        try runCommand(["ip", "-n", name] + arguments)
    }

    /// `ip netns exec NAME COMMAND…`
    @discardableResult
    public func exec(_ command: [String]) throws -> String {
        try runCommand(["ip", "netns", "exec", name] + command)
    }

    /// Runs `body` with the calling thread in this namespace, then switches back.
    public func enter<T>(_ body: () throws -> T) throws -> T {
        let original = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)
        let target = open("/run/netns/\(name)", O_RDONLY | O_CLOEXEC)
        defer {
            if original >= 0 { close(original) }
            if target >= 0 { close(target) }
        }
        guard original >= 0, target >= 0, c_setns(target, cloneNewNet) == 0 else {
            throw TestCommandError(command: ["setns", name], status: errno, output: String(cString: strerror(errno)))
        }
        defer {
            // Leaving the thread in the namespace would move unrelated later tests into it.
            if c_setns(original, cloneNewNet) != 0 { fatalError("cannot return from network namespace \(name)") }
        }
        return try body()
    }

    /// A veth pair inside the namespace, both ends up with IPv4 10.200.0.1/24 (`first`) and
    /// 10.200.0.2/24 (`second`) and IPv6 fd00:200::1/64, fd00:200::2/64 (no DAD, so usable at
    /// once), and IPv4 multicast routed out of `first` (IPv6 senders set IPV6_MULTICAST_IF): what
    /// `first` sends to a group arrives on `second`, where the tests capture and join.
    public func addVethPair(first: String = "gsv0", second: String = "gsv1") throws {
        try ip("link", "add", first, "type", "veth", "peer", "name", second)
        for (device, host) in [(first, "1"), (second, "2")] {
            try ip("addr", "add", "10.200.0.\(host)/24", "dev", device)
            try ip("-6", "addr", "add", "fd00:200::\(host)/64", "dev", device, "nodad")
            try ip("link", "set", device, "up")
        }
        try ip("route", "add", "224.0.0.0/4", "dev", first)
        // The kernel turns the carrier on (operstate UP, the queueing discipline active) in its
        // link-watch work, up to a second after `link set up` and later on a loaded machine;
        // until then what a device sends (the IGMP report of a join) is dropped.
        try waitFor("\(first) and \(second) up in \(name)") {
            try [first, second].allSatisfy { try ip("-o", "link", "show", "dev", $0).contains("state UP") }
        }
    }

    /// /proc/net/igmp of this namespace: (device, IPv4 group) per membership.
    public func igmpMemberships() throws -> [(device: String, group: String)] {
        try enter { try ProcNet.igmp(try String(contentsOfFile: "/proc/thread-self/net/igmp", encoding: .utf8)) }
    }

    /// /proc/net/igmp6 of this namespace: (device, IPv6 group) per membership.
    public func mldMemberships() throws -> [(device: String, group: String)] {
        try enter { ProcNet.igmp6(try String(contentsOfFile: "/proc/thread-self/net/igmp6", encoding: .utf8)) }
    }

    /// /proc/net/mcfilter of this namespace: (device, group, source) per IPv4 source filter.
    public func igmpSourceFilters() throws -> [(device: String, group: String, source: String)] {
        try enter { ProcNet.mcfilter(try String(contentsOfFile: "/proc/thread-self/net/mcfilter", encoding: .utf8)) }
    }

    private final class Counter: @unchecked Sendable {
        private var value = 0
        private let lock = NSLock()
        func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
    }
}

/// Parsers of the kernel's multicast membership tables (net/ipv4/igmp.c, net/ipv6/mcast.c).
public enum ProcNet {
    /// /proc/net/igmp prints the network-order word as a native integer (no ntohl).
    static func dotted(_ hex: Substring) -> String? {
        guard let value = UInt32(hex, radix: 16) else { return nil }
        return withUnsafeBytes(of: value) { $0.map(String.init).joined(separator: ".") }
    }

    /// /proc/net/mcfilter prints ntohl() of the address: plain big-endian hex.
    static func dottedHostOrder(_ hex: Substring) -> String? {
        guard let value = UInt32(hex, radix: 16) else { return nil }
        return withUnsafeBytes(of: value.bigEndian) { $0.map(String.init).joined(separator: ".") }
    }

    /// "Idx\tDevice    : Count Querier…" lines, each device's groups indented below it.
    public static func igmp(_ text: String) throws -> [(device: String, group: String)] {
        var device = ""
        var result: [(device: String, group: String)] = []
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first else { continue }
            if line.first?.isNumber == true, fields.count >= 2 {
                device = String(fields[1]).replacingOccurrences(of: ":", with: "")
            } else if let group = dotted(first) {
                result.append((device, group))
            }
        }
        return result
    }

    /// "index device group(32 hex) users flags timer".
    public static func igmp6(_ text: String) -> [(device: String, group: String)] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, fields[2].count == 32 else { return nil }
            let hex = Array(fields[2])
            let groups = stride(from: 0, to: 32, by: 4).map { String(UInt16(String(hex[$0..<$0 + 4]), radix: 16) ?? 0, radix: 16) }
            return (String(fields[1]), compressV6(groups))
        }
    }

    /// "Idx Device MCA SRC INC EXC" rows.
    public static func mcfilter(_ text: String) -> [(device: String, group: String, source: String)] {
        text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 4, let group = dottedHostOrder(fields[2].dropFirst(2)),
                  let source = dottedHostOrder(fields[3].dropFirst(2)) else { return nil }
            return (String(fields[1]), group, source)
        }
    }

    /// RFC 5952 text of eight hex groups (longest zero run of ≥ 2 as ::).
    static func compressV6(_ groups: [String]) -> String {
        var best = (start: -1, length: 0)
        var i = 0
        while i < groups.count {
            if groups[i] == "0" {
                var j = i
                while j < groups.count, groups[j] == "0" { j += 1 }
                if j - i > best.length { best = (i, j - i) }
                i = j
            } else {
                i += 1
            }
        }
        guard best.length >= 2 else { return groups.joined(separator: ":") }
        return groups[..<best.start].joined(separator: ":") + "::" + groups[(best.start + best.length)...].joined(separator: ":")
    }
}
