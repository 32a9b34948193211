import CGSBuildStamp
import Capture
import CurlHTTP
import ErasureCoding
import GPIO
import GrandstandCore
import MediaCodec
import SRT
import Systemd

extension BuildInfo {
    /// This binary's facts, gathered from the build stamp and from each linked library at run time.
    public static var current: BuildInfo {
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
                "libsrt": SRTLibrary.version,
                "libcurl": CurlClient.libraryVersion + (CurlClient.supportsHTTP2 ? " (HTTP/2)" : ""),
            ])
    }

    public static var compilerVersion: String {
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
