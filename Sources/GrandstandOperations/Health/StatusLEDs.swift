import GPIO
import Synchronization
import GrandstandCore

/// The board's status LEDs as requested GPIO output lines, driven by logical name. A chip that
/// is missing or busy is reported and leaves the daemon running without those LEDs; `retry`
/// tries it again (udev may not have given the chip to group gpio yet at boot).
public final class StatusLEDs: Sendable {
    private typealias Pending = (chip: String, leds: [(key: String, value: BoardDescription.LEDLine)])
    /// The line requests (GPIO handles, not Sendable) live in here: the health thread drives
    /// them, the daemon releases them, each under the lock.
    private struct State {
        var requests: [(request: GPIOLineRequest, names: [String: UInt32])] = []
        var unavailable: [(chip: String, error: String)] = []
        var pending: [Pending] = []
    }
    private let state: Mutex<State>
    private let consumer: String

    /// Requests every LED of `board`, all off, grouped by chip (one request per chip).
    public init(board: BoardDescription, consumer: String = "grandstand") {
        self.consumer = consumer
        let byChip = Dictionary(grouping: board.leds.sorted { $0.key < $1.key }, by: { $0.value.chip })
        state = Mutex(State(pending: byChip.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.map { (key: $0.key, value: $0.value) }) }))
        retry()
    }

    /// The chips that could not be used, with why.
    public var unavailable: [(chip: String, error: String)] { state.withLock { $0.unavailable } }

    /// Tries the chips not held yet; returns the logical LEDs newly held.
    @discardableResult
    func retry() -> [String] {
        state.withLock { state in
            var opened: [String] = []
            var failed: [(chip: String, error: String)] = []
            var still: [Pending] = []
            for (chipName, leds) in state.pending {
                do {
                    let chip = try GPIOChip.open(chipName)
                    let lines = leds.map { GPIOOutputLine(offset: $0.value.line, initialValue: false, activeLow: $0.value.activeLow) }
                    let request = try chip.requestOutputs(lines, consumer: consumer)
                    state.requests.append((request, Dictionary(uniqueKeysWithValues: leds.map { ($0.key, $0.value.line) })))
                    opened += leds.map(\.key)
                } catch {
                    failed.append((chipName, "\(error)"))
                    still.append((chipName, leds))
                }
            }
            state.pending = still
            state.unavailable = failed
            return opened.sorted()
        }
    }

    /// The logical LEDs actually held.
    public var names: [String] { state.withLock { $0.requests.flatMap(\.names.keys).sorted() } }

    /// Lights or darkens one LED; unknown names and unavailable chips are ignored.
    func set(_ name: String, on: Bool) {
        state.withLock { state in
            for entry in state.requests {
                if let offset = entry.names[name] { try? entry.request.setValue(on, offset: offset) }
            }
        }
    }

    /// Darkens every LED and gives the lines back to the kernel.
    public func release() {
        state.withLock { state in
            for entry in state.requests {
                try? entry.request.setValues(Array(repeating: false, count: entry.request.lines.count))
                entry.request.release()
            }
            state.requests = []
        }
    }
}
