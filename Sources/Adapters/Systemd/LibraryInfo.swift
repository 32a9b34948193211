import CGSSystemd
#if canImport(Glibc)
import Glibc
#endif

/// libsystemd has no version call; the file it was loaded from carries the ABI version.
public enum SystemdLibrary {
    /// The resolved file name of the loaded libsystemd (e.g. "libsystemd.so.0.35.0"), found in
    /// /proc/self/maps, or "unknown".
    public static var loadedFile: String {
        _ = sd_booted() // make sure the library is mapped even if nothing called it yet
        guard let maps = fopen("/proc/self/maps", "r") else { return "unknown" }
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let slash = text.firstIndex(of: "/"), text.contains("/libsystemd.so") else { continue }
            let path = String(text[slash...])
            guard let resolved = realpath(path, nil) else { return path.split(separator: "/").last.map(String.init) ?? path }
            defer { free(resolved) }
            return String(cString: resolved).split(separator: "/").last.map(String.init) ?? path
        }
        return "unknown"
    }
}
