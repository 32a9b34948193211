import CGSSystemd
import Foundation

/// libsystemd has no version call; the file it was loaded from carries the ABI version.
public enum SystemdLibrary {
    /// The resolved file of the loaded libsystemd (e.g. "libsystemd.so.0.35.0"), from
    /// /proc/self/maps, or "unknown".
    public static var loadedFile: String {
        _ = sd_booted() // make sure the library is mapped even if nothing called it yet
        // /proc files report size 0, so read them to EOF rather than by their stat size.
        guard let data = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd(),
              let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.contains("/libsystemd.so") }),
              let path = line.split(separator: " ").last
        else { return "unknown" }
        let resolved = URL(fileURLWithPath: String(path)).resolvingSymlinksInPath()
        return resolved.lastPathComponent
    }
}
