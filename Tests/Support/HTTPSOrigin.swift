import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway certificate authority made with the `openssl` command at test time, and server
/// certificates it signs: valid, expired, or for another host name.
public final class TestCertificateAuthority {
    public let directory: String
    public var caFile: String { directory + "/ca.pem" }

    public init() throws {
        directory = NSTemporaryDirectory() + "gs-ca-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/issued", withIntermediateDirectories: true)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        try """
            [ca]
            default_ca = test
            [test]
            dir = \(directory)
            database = \(directory)/index.txt
            new_certs_dir = \(directory)/issued
            serial = \(directory)/serial
            default_md = sha256
            policy = anything
            copy_extensions = none
            unique_subject = no
            [anything]
            commonName = supplied
            """.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", directory + "/ca.key", "-out", caFile, "-days", "3", "-subj", "/CN=Grandstand Test CA"])
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// Issues `name.pem` / `name.key` for `subjectAltNames` (`DNS:origin.test`, `IP:127.0.0.1`);
    /// `expired` dates it in January 2020.
    @discardableResult
    public func issue(_ name: String, subjectAltNames: [String], expired: Bool = false) throws -> (certificate: String, key: String) {
        let base = directory + "/" + name
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", base + ".key", "-out", base + ".csr", "-subj", "/CN=\(name)"])
        try "subjectAltName = \(subjectAltNames.joined(separator: ","))\nbasicConstraints = CA:FALSE\n"
            .write(toFile: base + ".ext", atomically: true, encoding: .utf8)
        let dates = expired ? ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"] : ["-days", "2"]
        try openssl(["ca", "-batch", "-notext", "-config", directory + "/ca.cnf", "-cert", caFile, "-keyfile", directory + "/ca.key",
                     "-in", base + ".csr", "-out", base + ".pem", "-extfile", base + ".ext"] + dates)
        return (base + ".pem", base + ".key")
    }

    /// libcurl's pin for a certificate's public key: `sha256//` + base64 of the SHA-256 of its DER SubjectPublicKeyInfo.
    public func publicKeyPin(_ certificate: String) throws -> String {
        let digest = try runCommand(["sh", "-c", "openssl x509 -in '\(certificate)' -pubkey -noout | openssl pkey -pubin -outform der"
                                     + " | openssl dgst -sha256 -binary | base64"])
        return "sha256//" + digest.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func openssl(_ arguments: [String]) throws { try runCommand(["openssl"] + arguments) }
}

/// A real HTTPS origin: Debian's nginx in its own network namespace (so its fixed ports touch
/// nothing of the host), with certificates from a `TestCertificateAuthority`. Clients reach it
/// at 127.0.0.1 from a thread inside the namespace (`enter`).
///
/// | port | what |
/// |---|---|
/// | 8443 | valid certificate (`origin.test`, 127.0.0.1), HTTP/2 offered; redirects `/hop1`→`/hop2`→`/hop3`→`/files/small.bin`, `/loop…` to itself, `/to-http` to plain http; `/slow/…` = `/files/…` at 256 kB/s |
/// | 8444 | expired certificate |
/// | 8445 | certificate for `elsewhere.test` only |
/// | 8446 | valid certificate, HTTP/1.1 only |
/// | 8080 | plain http |
public final class HTTPSOrigin {
    public static let port = 8443, expiredPort = 8444, wrongHostPort = 8445, http1Port = 8446, plainPort = 8080

    public let namespace: NetworkNamespace
    public let authority: TestCertificateAuthority
    public let directory: String
    public let certificate: String
    public var root: String { directory + "/www" }
    public var caFile: String { authority.caFile }
    private let process = Process()

    public init() throws {
        authority = try TestCertificateAuthority()
        let names = ["DNS:origin.test", "IP:127.0.0.1"]
        let good = try authority.issue("origin", subjectAltNames: names)
        let expired = try authority.issue("expired", subjectAltNames: names, expired: true)
        let elsewhere = try authority.issue("elsewhere", subjectAltNames: ["DNS:elsewhere.test"])
        certificate = good.certificate
        directory = NSTemporaryDirectory() + "gs-nginx-\(UUID().uuidString)"
        for sub in ["www/files", "temp", "logs"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        func tls(_ pair: (certificate: String, key: String)) -> String {
            "ssl_certificate \(pair.certificate); ssl_certificate_key \(pair.key);"
        }
        let locations = """
                root \(directory)/www;
                location /loop { return 302 $uri; }
                location = /hop1 { return 302 /hop2; }
                location = /hop2 { return 301 /hop3; }
                location = /hop3 { return 307 /files/small.bin; }
                location = /to-http { return 302 http://127.0.0.1:\(Self.plainPort)/files/small.bin; }
                location /slow/ { alias \(directory)/www/files/; limit_rate 256k; }
            """
        try """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/logs/error.log info;
            events { worker_connections 128; }
            http {
                access_log \(directory)/logs/access.log;
                client_body_temp_path \(directory)/temp/body;
                proxy_temp_path \(directory)/temp/proxy;
                fastcgi_temp_path \(directory)/temp/fastcgi;
                uwsgi_temp_path \(directory)/temp/uwsgi;
                scgi_temp_path \(directory)/temp/scgi;
                default_type application/octet-stream;
                ssl_protocols TLSv1.2 TLSv1.3;
                server { listen 127.0.0.1:\(Self.port) ssl http2; \(tls(good))
            \(locations)
                }
                server { listen 127.0.0.1:\(Self.expiredPort) ssl; \(tls(expired)) root \(directory)/www; }
                server { listen 127.0.0.1:\(Self.wrongHostPort) ssl; \(tls(elsewhere)) root \(directory)/www; }
                server { listen 127.0.0.1:\(Self.http1Port) ssl; \(tls(good)) root \(directory)/www; }
                server { listen 127.0.0.1:\(Self.plainPort); root \(directory)/www; }
            }
            """.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        namespace = try NetworkNamespace(prefix: "gs-https")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", namespace.name, "nginx", "-p", directory, "-e", directory + "/logs/error.log",
                             "-c", directory + "/nginx.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let child = process, namespace = namespace
        try waitFor("nginx to listen in \(namespace.name)", timeout: 30) {
            guard child.isRunning else { return true }
            return try namespace.enter { [Self.port, Self.expiredPort, Self.wrongHostPort, Self.http1Port, Self.plainPort].allSatisfy(Self.accepts) }
        }
        guard process.isRunning else {
            throw TestCommandError(command: ["nginx"], status: process.terminationStatus,
                                   output: (try? String(contentsOfFile: directory + "/logs/error.log", encoding: .utf8)) ?? "")
        }
    }

    deinit { stop() }

    public func stop() {
        // SIGKILL: the test process blocks SIGTERM, and nginx without a master keeps the mask it inherits.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `https://127.0.0.1:PORT/PATH`.
    public func url(_ path: String, port: Int = HTTPSOrigin.port) -> String {
        "\(port == Self.plainPort ? "http" : "https")://127.0.0.1:\(port)/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// Writes `bytes` at `www/PATH`.
    public func file(_ path: String, _ bytes: [UInt8]) throws {
        let full = root + "/" + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: full, contents: Data(bytes)) else {
            throw TestCommandError(command: ["write", full], status: errno, output: "")
        }
    }

    /// Runs `body` on this thread inside the origin's namespace (threads it starts stay there).
    public func enter<T>(_ body: () throws -> T) throws -> T { try namespace.enter(body) }

    /// Lines of nginx's access log.
    public var accessLog: [String] {
        ((try? String(contentsOfFile: directory + "/logs/access.log", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
