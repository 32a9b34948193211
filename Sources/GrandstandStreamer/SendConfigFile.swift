import GrandstandCore

/// `grandstand send --config FILE`: channels described in JSON instead of (or besides) options,
/// turned into the same `--video`/`--data` specs so there is one code path:
/// `{"channels":[{"name":"Bowl","kind":"video","file":"clean.ts","group":"239.255.20.1","port":5000},
///               {"name":"Scores","kind":"data","group":"239.255.20.2","port":5002,"file":"scores.jsonl"}]}`
/// A video channel may carry `"fec":"reed-solomon:k=20,m=4"` (the `--fec` grammar; `"none"` turns a
/// command-line `--fec` off for it). Relative `file` paths are relative to the config file's directory. Every bad value is
/// reported with its JSON path.
enum SendConfigFile {
    static func specs(_ bytes: [UInt8], directory: String) throws(SendSpec.Failure) -> (video: [(spec: String, fec: String?)], data: [String]) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw SendSpec.Failure("--config: \(error)")
        }
        var reader = JSONReader()
        var video: [(spec: String, fec: String?)] = [], data: [String] = []
        if let top = reader.object(root, at: .root, known: ["channels"]) {
            if top["channels"] == nil { reader.report(top.path, "\"channels\" is missing") }
            for (path, item) in reader.array(top["channels"], at: top.path("channels")) ?? [] {
                guard let channel = reader.object(item, at: path, known: ["name", "kind", "file", "group", "port", "fec"]) else { continue }
                let name = reader.string(channel["name"], at: channel.path("name"), required: true)
                let kind = reader.string(channel["kind"], at: channel.path("kind"), required: true)
                let file = reader.string(channel["file"], at: channel.path("file"))
                let group = reader.string(channel["group"], at: channel.path("group"), required: true)
                let port = reader.integer(channel["port"], at: channel.path("port"), in: 1...65535)
                let fec = reader.string(channel["fec"], at: channel.path("fec"))
                if let fec, let port, fec != "none", case .failure(let error) = StreamerFEC.parse(fec, mediaPort: UInt16(port)) {
                    reader.report(channel.path("fec"), error.reason)
                }
                if channel["port"] == nil { reader.report(channel.path("port"), "required port is missing") }
                guard let name, let kind, let group, let port else { continue }
                let address = group.contains(":") ? "[\(group)]:\(port)" : "\(group):\(port)"
                let resolved = file.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 }
                switch kind {
                case "video":
                    guard let resolved else { reader.report(channel.path("file"), "a video channel needs a file"); continue }
                    video.append((spec: "\(name)=\(resolved)@\(address)", fec: fec))
                case "data":
                    if fec != nil { reader.report(channel.path("fec"), "FEC is for video channels") }
                    data.append("\(name)@\(address)" + (resolved.map { "=" + $0 } ?? ""))
                default:
                    reader.report(channel.path("kind"), "\"\(kind)\" is not video or data")
                }
            }
        }
        guard reader.issues.isEmpty else {
            throw SendSpec.Failure("--config:\n" + reader.issues.map { "  \($0)" }.joined(separator: "\n"))
        }
        return (video, data)
    }
}
