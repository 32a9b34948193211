import GrandstandCore

/// The management API's answers as text for a terminal (`grandstand channels`, `status`,
/// `stats`, `record ls`, `leds`): fixed-width tables and short lines; `--json` prints the JSON.
public enum ManagementText {
    public static func channels(_ document: JSONValue) -> String {
        guard case .array(let channels) = document, !channels.isEmpty else { return "no channels\n" }
        var table = TextTable(["ID", "KIND", "NAME", "LIVE", "KBIT/S", "PLAYLIST"])
        for channel in channels {
            var kbps = "-"
            if case .number(let bits)? = channel["bandwidth"] { kbps = String(Int(bits / 1000)) }
            table.append([TextTable.cell(channel["id"]), TextTable.cell(channel["kind"]), TextTable.cell(channel["name"]),
                          TextTable.cell(channel["live"]), kbps,
                          TextTable.cell(channel["playlist"] ?? channel["messages"])])
        }
        return table.text
    }

    public static func status(_ document: JSONValue) -> String {
        var table = TextTable(["FIELD", "VALUE"])
        for (name, value) in TextTable.flattened(document) { table.append([name, value]) }
        return table.text
    }

    public static func stats(_ document: JSONValue, channel only: String? = nil) -> String {
        var out = ""
        if only == nil, let total = document["total"] {
            var table = TextTable(["TOTAL", "VALUE"])
            for (name, value) in TextTable.flattened(total) { table.append([name, value]) }
            out += table.text
            let wifi = wifi(document)
            if !wifi.isEmpty { out += "\n" + wifi }
        }
        guard case .object(let channels)? = document["channels"] else { return out }
        let chosen = channels.filter { only == nil || $0.key == only }
        guard !chosen.isEmpty else { return out }
        var rows: [String: [String: String]] = [:]
        for (id, stats) in chosen {
            for (name, value) in TextTable.flattened(stats) { rows[name, default: [:]][id] = value }
        }
        var table = TextTable(["CHANNEL"] + chosen.map(\.key))
        for name in rows.keys.sorted() {
            table.append([name] + chosen.map { rows[name]?[$0.key] ?? "-" })
        }
        return out + (out.isEmpty ? "" : "\n") + table.text
    }

    /// The Wi-Fi part of `grandstand stats` (the `wifi*` and `in_venue` members of
    /// `/api/v1/stats`, docs/wifi.md): the uplink's link, then one row per wireless interface.
    public static func wifi(_ document: JSONValue) -> String {
        guard document["wifi"] != nil || document["wifi_interfaces"] != nil else { return "" }
        var uplink = TextTable(["WIFI", "VALUE"])
        uplink.append(["in_venue", TextTable.cell(document["in_venue"])])
        if let wifi = document["wifi"], wifi != .null {
            for (name, value) in TextTable.flattened(wifi) { uplink.append([name, value]) }
        } else {
            uplink.append(["error", TextTable.cell(document["wifi_error"])])
        }
        var out = uplink.text
        guard case .array(let interfaces)? = document["wifi_interfaces"], !interfaces.isEmpty else { return out }
        var table = TextTable(["INTERFACE", "MODE", "SSID", "BSSID", "MHZ", "SIGNAL", "CLIENTS"])
        for interface in interfaces {
            let clients: String
            if case .array(let stations)? = interface["stations"] {
                clients = stations.map { "\(TextTable.cell($0["mac"]))@\(TextTable.cell($0["signal_dbm"]))dBm" }.joined(separator: " ")
            } else {
                clients = "-"
            }
            table.append([TextTable.cell(interface["interface"]), TextTable.cell(interface["mode"] ?? interface["error"]),
                          TextTable.cell(interface["ssid"]), TextTable.cell(interface["bssid"]),
                          TextTable.cell(interface["frequency_mhz"]), TextTable.cell(interface["signal_dbm"]), clients.isEmpty ? "0" : clients])
        }
        out += "\n" + table.text
        return out
    }

    public static func records(_ document: JSONValue) -> String {
        var table = TextTable(["NAME", "CHANNEL", "STATE", "SECONDS", "BYTES", "DOWNLOAD"])
        guard case .array(let records)? = document["records"] else { return table.text }
        for record in records {
            func text(_ key: String) -> String {
                switch record[key] {
                case .string(let value)?: value
                case .number(let value)?: value == value.rounded() ? String(Int(value)) : String(Int(value.rounded()))
                default: "-"
                }
            }
            // `failed: interrupted`: the state with its reason; a failed recording still has a download (what was kept).
            let state = text("state") == "failed" ? "failed: \(text("reason"))" : text("state")
            let channel = text("channel").isEmpty ? "-" : text("channel")
            table.append([text("name"), channel, state, text("durationSeconds"), text("bytes"), text("download")])
        }
        return table.text
    }

    /// A few readable lines: service state and pattern, then one line per LED.
    public static func leds(_ document: JSONValue) -> String {
        var lines: [String] = []
        if let service = document["service"] {
            let state = service["state"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
            var reasons: [String] = []
            if case .array(let items)? = service["reasons"] { reasons = items.compactMap { if case .string(let s) = $0 { s } else { nil } } }
            let pattern = document["pattern"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
            lines.append("service \(state)" + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))") + ", pattern \(pattern)")
        }
        if case .array(let leds)? = document["leds"] {
            for led in leds {
                let name = led["name"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
                let chip = led["chip"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "?"
                let line = led["line"].flatMap { IngestStats.int($0) } ?? -1
                let lit: String
                switch led["lit"] {
                case .bool(true)?: lit = "on"
                case .bool(false)?: lit = "off"
                default: lit = "not held"
                }
                lines.append("  \(name.padding(9)) \(chip) line \(line): \(lit)")
            }
        }
        if case .array(let failures)? = document["unavailable"] {
            for case .string(let failure) in failures { lines.append("  unavailable: \(failure)") }
        }
        return lines.joined(separator: "\n")
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
