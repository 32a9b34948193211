import ArgumentParser
import Capture
import ErasureCoding
import GPIO
import MediaCodec
import CGSBuildStamp
import GrandstandCore
import Systemd

/// `grandstand version`: what was built, from which commit, with which compiler and libraries.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print version, commit, Swift and library versions.")

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let info = BuildInfo.current
        if json {
            print(info.json.encoded)
        } else {
            print(info.text, terminator: "")
        }
    }
}

extension BuildInfo {
    /// This binary's facts, gathered from the build stamp and from each linked library at run time.
    static var current: BuildInfo {
        BuildInfo(
            version: String(cString: gs_build_version()),
            gitCommit: String(cString: gs_build_commit()),
            swiftVersion: compilerVersion,
            libraries: [
                "libpcap": PacketCapture.libraryVersion,
                "libsystemd": SystemdLibrary.loadedFile,
                "libgpiod": GPIOLibrary.version,
                "ffmpeg": MediaCodecLibrary.versionSummary,
                "isa-l": ErasureCodingLibrary.isalVersion,
            ])
    }

    static var compilerVersion: String {
        #if compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }
}
