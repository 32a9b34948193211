import GPIO
import GrandstandCore

/// The board's status LEDs as requested GPIO output lines, driven by logical name. A chip that
/// is missing or busy is reported once and leaves the daemon running without those LEDs.
final class StatusLEDs {
    private var requests: [(request: GPIOLineRequest, names: [String: UInt32])] = []
    private(set) var unavailable: [(chip: String, error: String)] = []

    /// Requests every LED of `board`, all off, grouped by chip (one request per chip).
    init(board: BoardDescription, consumer: String = "grandstand") {
        let byChip = Dictionary(grouping: board.leds.sorted { $0.key < $1.key }, by: { $0.value.chip })
        for (chipName, leds) in byChip.sorted(by: { $0.key < $1.key }) {
            do {
                let chip = try GPIOChip.open(chipName)
                let lines = leds.map { GPIOOutputLine(offset: $0.value.line, initialValue: false, activeLow: $0.value.activeLow) }
                let request = try chip.requestOutputs(lines, consumer: consumer)
                requests.append((request, Dictionary(uniqueKeysWithValues: leds.map { ($0.key, $0.value.line) })))
            } catch {
                unavailable.append((chipName, "\(error)"))
            }
        }
    }

    /// The logical LEDs actually held.
    var names: [String] { requests.flatMap(\.names.keys).sorted() }

    /// Lights or darkens one LED; unknown names and unavailable chips are ignored.
    func set(_ name: String, on: Bool) {
        for entry in requests {
            if let offset = entry.names[name] { try? entry.request.setValue(on, offset: offset) }
        }
    }

    /// Darkens every LED and gives the lines back to the kernel.
    func release() {
        for entry in requests {
            try? entry.request.setValues(Array(repeating: false, count: entry.request.lines.count))
            entry.request.release()
        }
        requests = []
    }
}
