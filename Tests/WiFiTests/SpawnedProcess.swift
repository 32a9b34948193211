#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A long-running helper (hostapd) started with posix_spawn, stdio on /dev/null, signals
/// unblocked and default: no Foundation `Process`, whose exit detection and run-loop wait are
/// what stalled the hwsim test in the guest (swift-corelibs-foundation #4795). `stop()` sends
/// SIGTERM, waits up to `grace` seconds with waitpid, then SIGKILL.
final class SpawnedProcess {
    let pid: pid_t
    private var reaped = false

    struct SpawnError: Error, CustomStringConvertible {
        let command: [String]
        let errno: Int32
        var description: String { "posix_spawn \(command.joined(separator: " ")): \(String(cString: strerror(errno)))" }
    }

    init(_ command: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let status = posix_spawnp(&child, command[0], &actions, &attributes, argv, environ)
        guard status == 0 else { throw SpawnError(command: command, errno: status) }
        pid = child
    }

    /// Whether the process still runs (reaps it if it ended).
    var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result == -1 && errno == ECHILD) { reaped = true }
        return !reaped
    }

    func stop(grace: Double = 10) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        try? waitFor("pid \(pid) to exit after SIGTERM", timeout: grace) { !isRunning }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            reaped = true
        }
    }

    deinit { stop() }
}

/// The helper itself (runs everywhere): a child that ignores nothing ends on stop, a missing
/// program is a clear error.
@Suite struct SpawnedProcessTests {
    @Test func stopEndsTheChildWithinTheGrace() throws {
        let child = try SpawnedProcess(["sleep", "30"])
        #expect(child.isRunning)
        child.stop(grace: 10)
        #expect(!child.isRunning)
        #expect(kill(child.pid, 0) == -1)
    }

    @Test func aMissingProgramIsAClearError() throws {
        do {
            let child = try SpawnedProcess(["gs-no-such-program-9"])
            // qemu-user's vfork emulation cannot report the exec failure: the child exits 127.
            #expect(TestEnvironment.isQEMUUser, "spawned a program that does not exist")
            var status: Int32 = 0
            #expect(waitpid(child.pid, &status, 0) == child.pid)
            #expect((status >> 8) & 0xff == 127)
        } catch let error as SpawnedProcess.SpawnError {
            #expect(error.errno == ENOENT)
            #expect(error.description == "posix_spawn gs-no-such-program-9: No such file or directory")
        }
    }
}
