import ErasureCoding
import GrandstandCore
#if canImport(Glibc)
import Glibc
#endif
import GrandstandOperations

/// `grandstand send --files [NAME@GROUP:PORT=]DIR`: a FLUTE carousel of a directory's files
/// (docs/files.md). The directory is read again before every round, so a changed file goes out
/// under a new TOI with a new FDT instance. Files above 16 MiB are read a source block at a time.
public enum FluteSend {
    /// The product's Reed-Solomon math for FEC Encoding ID 5 (RFC 5510 generator over ISA-L).
    static func reedSolomon() -> any ReedSolomonMath { RFC5510ReedSolomonMath() }

    static let defaultDestination = Endpoint(address: .v4(0xEFFF_1409), port: 5010)   // 239.255.20.9:5010

    public struct Channel {
        var name: String
        var directory: String
        var destination: Endpoint
        var options: FluteCarouselSource.Options
        var files: [FluteFile]

        func description(ttl: Int, license: LicenseTriplet?, origin: IPAddress, version: UInt64) -> ChannelDescription {
            let bytes = files.reduce(0) { $0 + $1.size }
            return ChannelDescription(name: name, information: "FLUTE carousel of \(files.count) files (\(bytes) bytes) from \(directory)",
                                      media: .file, destination: destination, ttl: ttl, license: license, origin: origin,
                                      sessionVersion: version, extraAttributes: ["flute-tsi:\(options.tsi)"])
        }

        func source(flow: String, start: Int64, passes: Int?) -> FluteCarouselSource? {
            var options = options
            options.rounds = passes
            let directory = directory
            return try? FluteCarouselSource(flow: flow, destination: destination, files: files, options: options, startNanoseconds: start,
                                            math: options.repairSymbols > 0 ? RFC5510ReedSolomonMath() : nil,
                                            reload: { try? FluteSend.read(directory: directory) })
        }
    }

    /// The `--files` channels with the `--file-…` options, files read once to check them.
    static func channels(_ command: any SendOptions) throws -> [Channel] {
        var result: [Channel] = []
        for text in command.files {
            var name = "Files", destination = defaultDestination, directory = text
            if text.contains("@") {
                let spec = try SendSpec.data(text)
                guard let dir = spec.file else { throw SendSpec.Failure("--files \"\(text)\": expected NAME@GROUP:PORT=DIR") }
                (name, destination, directory) = (spec.name, spec.destination, dir)
            }
            let options = FluteCarouselSource.Options(
                tsi: command.fileTSI, symbolLength: command.fileSymbolSize, maxBlockLength: command.fileBlock,
                repairSymbols: command.fileRepair, intervalNanoseconds: Int64(command.fileInterval * 1e9),
                contentEncoding: command.fileEncoding, interleaveBlocks: command.fileInterleave)
            let files: [FluteFile]
            do { files = try read(directory: directory) } catch {
                throw SendSpec.Failure("--files \(directory): \(error)")
            }
            guard !files.isEmpty else { throw SendSpec.Failure("--files \(directory): no files") }
            do {
                _ = try FluteCarouselSource(flow: "check", destination: destination, files: [], options: options, startNanoseconds: 0,
                                            math: options.repairSymbols > 0 ? RFC5510ReedSolomonMath() : nil)
            } catch {
                throw SendSpec.Failure("--files \(directory): \(error)")
            }
            result.append(Channel(name: name, directory: directory, destination: destination, options: options, files: files))
        }
        return result
    }

    /// Every regular file under `directory` (hidden names skipped), paths relative to it, sorted.
    static func read(directory: String) throws(StateFileError) -> [FluteFile] {
        var out: [FluteFile] = []
        try walk(directory, prefix: "", depth: 0, into: &out)
        return out.sorted { $0.path < $1.path }
    }

    private static func walk(_ folder: String, prefix: String, depth: Int, into out: inout [FluteFile]) throws(StateFileError) {
        guard depth < 8, let dir = opendir(folder) else {
            throw StateFileError(operation: "open folder", path: folder, errno: depth < 8 ? errno : ELOOP)
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        closedir(dir)
        for name in names.sorted() {
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                try walk(path, prefix: prefix + name + "/", depth: depth + 1, into: &out)
            } else if (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) > FluteFileSource.threshold {
                out.append(FluteFile(path: prefix + name, reader: try FluteFileSource.reader(path, info), contentType: MediaType.forPath(name)))
            } else if (info.st_mode & S_IFMT) == S_IFREG, let bytes = try AtomicFile.read(path, limit: FluteFileSource.threshold) {
                out.append(FluteFile(path: prefix + name, bytes: bytes, contentType: MediaType.forPath(name)))
            }
        }
    }
}
