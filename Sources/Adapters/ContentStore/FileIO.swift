import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif

/// The few POSIX file operations the store needs, each failing with a `ContentStoreError`.
enum FileIO {
    /// Makes `path` a directory, with its missing parents (the cache's default lives under the
    /// state directory, which may not exist yet at the daemon's start).
    static func makeDirectory(_ path: String, depth: Int = 0) throws(ContentStoreError) {
        if mkdir(path, 0o755) != 0 {
            let code = Glibc.errno
            if code == ENOENT, depth < 16, let slash = path.lastIndex(of: "/"), slash > path.startIndex {
                try makeDirectory(String(path[..<slash]), depth: depth + 1)
                if mkdir(path, 0o755) != 0 && Glibc.errno != EEXIST { throw .errno("mkdir", path) }
            } else if code != EEXIST {
                throw ContentStoreError("mkdir", path, code: code)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .errno("stat", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw ContentStoreError("mkdir", path, code: ENOTDIR) }
    }

    static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0o644) throws(ContentStoreError) -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .errno("open", path) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>, path: String) throws(ContentStoreError) {
        let array = Array(bytes)
        var done = 0
        while done < array.count {
            let count = array[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw .errno("write", path)
            }
            done += count
        }
    }

    static func sync(_ fd: Int32, path: String) throws(ContentStoreError) {
        guard fsync(fd) == 0 else { throw .errno("fsync", path) }
    }

    static func dataSync(_ fd: Int32, path: String) throws(ContentStoreError) {
        guard fdatasync(fd) == 0 else { throw .errno("fdatasync", path) }
    }

    /// fsyncs a directory so a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) throws(ContentStoreError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try sync(fd, path: path)
    }

    static func rename(_ from: String, _ to: String) throws(ContentStoreError) {
        guard Glibc.rename(from, to) == 0 else { throw .errno("rename", from) }
    }

    /// Size of a regular file; nil when it does not exist.
    static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    static func readAll(_ path: String) throws(ContentStoreError) -> [UInt8] {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw .errno("read", path)
            }
            if count == 0 { return out }
            out.append(contentsOf: chunk[0..<count])
        }
    }

    /// Names in a directory (no `.`/`..`); empty when it cannot be read.
    static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Free bytes for an unprivileged writer on the filesystem holding `path`.
    static func freeBytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// SHA-256 of a file, streamed.
    static func sha256(_ path: String) throws(ContentStoreError) -> (digest: String, size: Int) {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        var hash = SHA256()
        var size = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw .errno("read", path)
            }
            if count == 0 { return (hash.finalizeHex(), size) }
            hash.update(chunk[0..<count])
            size += count
        }
    }
}
