import Foundation
import Testing
import RAUC
import TestSupport
@testable import GrandstandOperations

/// The RAUC adapter's bundle inspection against a real `rauc service` on a private D-Bus (no
/// slots are written: a `noop` boot loader and a file as the slot): a bundle signed by the
/// keyring's CA is described (compatible, version), one signed by another CA is refused with
/// RAUC's reason, and `Compatible` is the system's. On a RAUC older than `InspectBundle` (1.8)
/// the legacy `Info` answers. Skipped without rauc, dbus-daemon and mksquashfs.
@Suite(.serialized) struct RAUCInspectTests {
    static let tools = ["/usr/bin/rauc", "/usr/bin/dbus-daemon", "/usr/bin/mksquashfs", "/usr/bin/openssl"]
    static let available = tools.allSatisfy { access($0, X_OK) == 0 }
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `tools/update/keys.sh ARGS`: the folder with ca.cert.pem, signing.cert.pem, signing.key.pem.
    static func keys(_ arguments: [String]) throws -> String {
        let result = try runTool("/usr/bin/env", ["bash", repo.appendingPathComponent("tools/update/keys.sh").path] + arguments, timeout: 120)
        try #require(result.status == 0, "keys.sh: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A verity bundle of a 1 MiB random image, signed with the keys in `keys`.
    static func bundle(_ out: String, compatible: String, version: String, keys: String, in dir: String) throws {
        let input = dir + "/input-" + URL(fileURLWithPath: out).lastPathComponent
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: input + "/rootfs.img"))
        try Data("[update]\ncompatible=\(compatible)\nversion=\(version)\n[bundle]\nformat=verity\n[image.rootfs]\nfilename=rootfs.img\n".utf8)
            .write(to: URL(fileURLWithPath: input + "/manifest.raucm"))
        let result = try runTool("/usr/bin/rauc", ["bundle", "--cert=\(keys)/signing.cert.pem", "--key=\(keys)/signing.key.pem",
                                                   "--keyring=\(keys)/ca.cert.pem", input, out], timeout: 120)
        try #require(result.status == 0, "rauc bundle: \(result.stderr)")
    }

    /// A running helper; `stop()` ends it (SIGKILL: nothing of it is kept) and waits for its exit.
    final class Helper: @unchecked Sendable {
        let process = Process()
        let exited = DispatchSemaphore(value: 0)

        func stop() {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
    }

    static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:], log: String) throws -> Helper {
        let helper = Helper()
        let process = helper.process
        let exited = helper.exited
        process.terminationHandler = { _ in exited.signal() }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return helper
    }

    @Test(.enabled(if: available)) func inspectsAndVerifiesThroughARealRAUC() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gs-rauc-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir + "/mnt", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let dev = try Self.keys(["dev"]), foreign = try Self.keys(["other", "foreign"])
        try Self.bundle(dir + "/good.raucb", compatible: "grandstand-test", version: "0.2.0", keys: dev, in: dir)
        try Self.bundle(dir + "/foreign.raucb", compatible: "grandstand-test", version: "0.2.0", keys: foreign, in: dir)
        try Self.bundle(dir + "/rpi4.raucb", compatible: "grandstand-rpi4", version: "0.3.0", keys: dev, in: dir)
        let bus = "unix:path=\(dir)/bus"
        try Data("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>\(bus)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/><allow user="*"/></policy></busconfig>
            """.utf8).write(to: URL(fileURLWithPath: dir + "/bus.conf"))
        _ = FileManager.default.createFile(atPath: dir + "/slot0.img", contents: Data(count: 1 << 20))
        try Data("""
            [system]
            compatible=grandstand-test
            bootloader=noop
            bundle-formats=-plain
            [keyring]
            path=\(dev)/ca.cert.pem
            [slot.rootfs.0]
            device=\(dir)/slot0.img
            type=raw
            bootname=A

            """.utf8).write(to: URL(fileURLWithPath: dir + "/system.conf"))
        let daemon = try Self.start("/usr/bin/dbus-daemon", ["--nofork", "--config-file=\(dir)/bus.conf"], log: dir + "/dbus.log")
        defer { daemon.stop() }
        try waitFor("the private bus", timeout: 30) { access(dir + "/bus", F_OK) == 0 }
        let service = try Self.start("/usr/bin/rauc", ["service", "--conf=\(dir)/system.conf", "--mount=\(dir)/mnt", "--override-boot-slot=A"],
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus], log: dir + "/rauc.log")
        defer { service.stop() }
        let rauc = RAUCInstaller(busAddress: bus)
        try waitFor("rauc service on the bus", timeout: 30) { (try? rauc.systemCompatible()) == "grandstand-test" }

        let good = try rauc.inspect(dir + "/good.raucb")
        #expect(good.compatible == "grandstand-test" && good.version == "0.2.0", "\(good.facts)")
        // Inspection does not judge the compatible string (the update side does): described as is.
        let other = try rauc.inspect(dir + "/rpi4.raucb")
        #expect(other.compatible == "grandstand-rpi4" && other.version == "0.3.0")
        // Another CA's signature: refused. InspectBundle (RAUC ≥ 1.9, trixie) gives the reason
        // (`signature verification failed: …`); 1.8's legacy Info only says "rauc info error".
        #expect {
            _ = try rauc.inspectBundle(dir + "/foreign.raucb")
        } throws: { error in
            let message = (error as? BusError)?.message ?? ""
            return message.contains("signature") || message.contains("issuer") || message == "rauc info error"
        }
        #expect(throws: BusError.self) { _ = try rauc.inspectBundle(dir + "/missing.raucb") }
    }

    /// What trixie's RAUC 1.13 answers (Tests/Fixtures/rauc-inspect-1.13.py replays the VM's
    /// answer, each group a variant inside the dict entry's variant) is read: the daemon once read
    /// an empty `compatible` from it and refused every bundle heard on the update channel.
    @Test(.enabled(if: access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0))
    func readsTrixiesInspectBundleAnswer() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gs-rauc113-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bus = "unix:path=\(dir)/bus"
        try Data("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>system</type><listen>\(bus)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/><allow user="*"/></policy></busconfig>
            """.utf8).write(to: URL(fileURLWithPath: dir + "/bus.conf"))
        let daemon = try Self.start("/usr/bin/dbus-daemon", ["--nofork", "--config-file=\(dir)/bus.conf"], log: dir + "/dbus.log")
        defer { daemon.stop() }
        try waitFor("the private bus", timeout: 30) { access(dir + "/bus", F_OK) == 0 }
        let fake = try Self.start("/usr/bin/python3", [Self.repo.appendingPathComponent("Tests/Fixtures/rauc-inspect-1.13.py").path, bus],
                                  log: dir + "/fake.log")
        defer { fake.stop() }
        let rauc = RAUCInstaller(busAddress: bus)
        try waitFor("the stand-in on the bus", timeout: 30) { (try? rauc.systemCompatible()) == "grandstand-qemu-virt" }
        let info = try rauc.inspectBundle("/var/lib/grandstand/files/updates/grandstand-0.1.0+vmtest.2.raucb")
        #expect(info.compatible == "grandstand-qemu-virt" && info.version == "0.1.0+vmtest.2", "\(info.facts)")
        #expect(info.manifestHash == "06019aa39fadc647e3c3f2e87eec2bf2702cca6458048e02d48ce16b78256ae6")
        #expect(info.facts["bundle.format"] == "verity" && info.facts["hooks.filename"] == "hook")
    }
}
