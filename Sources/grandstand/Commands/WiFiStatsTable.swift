import GrandstandCore

/// The Wi-Fi part of `grandstand stats` (the `wifi*` and `in_venue` members of
/// `/api/v1/stats`, docs/wifi.md): the uplink's link, then one row per wireless interface.
enum WiFiStatsTable {
    static func render(_ document: JSONValue) -> String {
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
}
