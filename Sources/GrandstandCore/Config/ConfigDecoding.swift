/// The configuration was rejected: every bad value with its JSON path and the reason.
public struct ConfigError: Error, Equatable, CustomStringConvertible, Sendable {
    public let issues: [JSONIssue]
    public var description: String { issues.map(\.description).joined(separator: "\n") }

    /// Parses `bytes` as JSON and runs `decode` over it; any parse error or reported issue fails.
    static func decoding<T>(_ bytes: [UInt8], with decode: (JSONValue, inout JSONReader) -> T?) throws(ConfigError) -> T {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ConfigError(issues: [JSONIssue(path: .root, reason: "not valid JSON: \(error)")])
        }
        var reader = JSONReader()
        let value = decode(document, &reader)
        guard reader.issues.isEmpty, let value else { throw ConfigError(issues: reader.issues) }
        return value
    }
}

extension GatewayConfig {
    /// Parses and validates a configuration document; collects all problems before failing.
    public static func decode(_ bytes: [UInt8]) throws(ConfigError) -> GatewayConfig {
        try ConfigError.decoding(bytes, with: decode)
    }

    static func decode(_ document: JSONValue, _ reader: inout JSONReader) -> GatewayConfig? {
        guard let root = reader.object(document, at: .root, known: ["license", "network", "listeners", "management", "board",
                                                                         "streamers", "channels", "discovery", "fec", "health", "hls",
                                                                         "stateDirectory", "logLevel", "reporting", "catalog", "cache", "records",
                                                                         "update", "files"]) else {
            return nil
        }
        let license = decodeLicense(root, &reader)
        var network = Network()
        if let object = reader.object(root["network"], at: root.path("network"), known: ["interface", "wifiInterface", "wifiApInfo"]) {
            network.interface = reader.string(object["interface"], at: object.path("interface")) ?? network.interface
            if object["wifiInterface"] == .null {
                network.wifiInterface = nil
            } else {
                network.wifiInterface = reader.string(object["wifiInterface"], at: object.path("wifiInterface")) ?? network.wifiInterface
            }
            network.wifiApInfo = (reader.array(object["wifiApInfo"], at: object.path("wifiApInfo")) ?? []).compactMap { path, value in
                decodeAccessPoint(value, at: path, &reader)
            }
        }
        var listeners = Listeners()
        if let object = reader.object(root["listeners"], at: root.path("listeners"), known: ["fan", "management", "fanLimits"]) {
            listeners.fan = decodeListenAddress(object["fan"], at: object.path("fan"), &reader) ?? listeners.fan
            listeners.fanLimits = decodeFanLimits(object["fanLimits"], at: object.path("fanLimits"), &reader)
            listeners.management = decodeListenAddress(object["management"], at: object.path("management"), &reader) ?? listeners.management
        }
        var token: String?
        if let object = reader.object(root["management"], at: root.path("management"), known: ["token"]) {
            token = reader.string(object["token"], at: object.path("token"))
            if let text = token, let problem = ManagementToken.problem(text) {
                reader.report(object.path("token"), problem)
            }
        }
        let stateDirectory = reader.string(root["stateDirectory"], at: root.path("stateDirectory"))
        if let path = stateDirectory, !path.hasPrefix("/") {
            reader.report(root.path("stateDirectory"), "\"\(path)\" is not an absolute path")
        }
        var logLevel = LogLevel.info
        if let name = reader.string(root["logLevel"], at: root.path("logLevel")) {
            if let level = LogLevel(name: name) {
                logLevel = level
            } else {
                reader.report(root.path("logLevel"), "\"\(name)\" is not a log level (\(LogLevel.allCases.map(\.name).joined(separator: ", ")))")
            }
        }
        let board = reader.string(root["board"], at: root.path("board"))
        let streamers = decodeStreamers(root, &reader)
        let channels = decodeChannels(root, &reader)
        let discovery = decodeDiscovery(root, &reader)
        let fec = decodeFECLimits(root, &reader)
        let health = HealthConfig.decode(root["health"], at: root.path("health"), &reader)
        let hls = decodeHLS(root, &reader)
        let reporting = decodeReporting(root, &reader)
        let catalog = decodeCatalog(root, &reader)
        guard let license else { return nil }
        var config = GatewayConfig(license: license, network: network, listeners: listeners, managementToken: token,
                                   stateDirectory: stateDirectory ?? defaultStateDirectory, logLevel: logLevel, boardPath: board,
                                   streamers: streamers, channels: channels, discovery: discovery)
        config.fec = fec
        config.health = health
        config.hls = hls
        config.reporting = reporting
        config.catalog = catalog
        config.cache = decodeCache(root, stateDirectory: config.stateDirectory, &reader)
        config.records = decodeRecords(root, &reader)
        config.update = decodeUpdate(root, &reader)
        config.files = decodeFiles(root, &reader)
        return config
    }

    private static func decodeLicense(_ root: JSONObjectView, _ reader: inout JSONReader) -> License? {
        let path = root.path("license")
        guard root["license"] != nil else {
            reader.report(path, "required object is missing (needs venueName, contentOwner, appDeveloper)")
            return nil
        }
        guard let object = reader.object(root["license"], at: path, known: ["venueName", "contentOwner", "appDeveloper", "required"]) else {
            return nil
        }
        let required = reader.bool(object["required"], at: object.path("required")) ?? true
        let venue = reader.string(object["venueName"], at: object.path("venueName"), required: true)
        let owner = reader.string(object["contentOwner"], at: object.path("contentOwner"), required: true)
        let developer = reader.string(object["appDeveloper"], at: object.path("appDeveloper"), required: true)
        guard let venue, let owner, let developer else { return nil }
        return License(venueName: venue, contentOwner: owner, appDeveloper: developer, required: required)
    }

    private static func decodeAccessPoint(_ value: JSONValue, at path: JSONPath, _ reader: inout JSONReader) -> WiFiAccessPoint? {
        guard let object = reader.object(value, at: path, known: ["name", "bssid"]) else { return nil }
        let name = reader.string(object["name"], at: object.path("name"), required: true)
        var bssid = reader.string(object["bssid"], at: object.path("bssid"), required: true)
        if let text = bssid {
            bssid = MACAddress.normalized(text)
            if bssid == nil { reader.report(object.path("bssid"), "\"\(text)\" is not a MAC address like 02:00:00:00:01:00") }
        }
        guard let name, let bssid else { return nil }
        return WiFiAccessPoint(name: name, bssid: bssid)
    }

    private static func decodeListenAddress(_ value: JSONValue?, at path: JSONPath, _ reader: inout JSONReader) -> ListenAddress? {
        guard let text = reader.string(value, at: path) else { return nil }
        guard let address = ListenAddress(parsing: text) else {
            reader.report(path, "\"\(text)\" is not a numeric host:port such as 0.0.0.0:8080 or [::]:8080")
            return nil
        }
        return address
    }
}
