/// Per-flow counters kept by the scheduler (what the loss model let through or dropped).
public struct FlowCounters: Sendable, Equatable {
    public var emitted = 0
    public var dropped = 0
    public var bytesEmitted = 0
    public init() {}
}

/// Merges sources by due time and applies each flow's loss model. Ties go to the source added
/// first, so the output order is deterministic.
public struct StreamerScheduler {
    public private(set) var sources: [any StreamerSource] = []
    public private(set) var counters: [String: FlowCounters] = [:]
    private var loss: [String: LossModel] = [:]

    public init() {}

    public mutating func add(_ source: any StreamerSource) { sources.append(source) }

    /// Drops datagrams of `flow` as `model` says (a fresh copy per flow keeps flows independent).
    public mutating func setLoss(_ model: LossModel, flow: String) { loss[flow] = model }

    /// The earliest due time over all sources; nil when all are exhausted.
    public var nextDueNanoseconds: Int64? { sources.compactMap(\.nextDueNanoseconds).min() }

    /// True when every foreground source is exhausted (background ones such as SAP never are).
    public var isFinished: Bool { !sources.contains { !$0.isBackground && $0.nextDueNanoseconds != nil } }

    /// Every datagram due at or before `nowNanoseconds`, in due order, minus the dropped ones.
    public mutating func popDue(nowNanoseconds: Int64) -> [ScheduledDatagram] {
        var out: [ScheduledDatagram] = []
        while true {
            var best: Int? = nil
            var bestDue = Int64.max
            for i in sources.indices {
                if let due = sources[i].nextDueNanoseconds, due <= nowNanoseconds, due < bestDue {
                    best = i
                    bestDue = due
                }
            }
            guard let index = best else { return out }
            for datagram in sources[index].pop() {
                var counter = counters[datagram.flow] ?? FlowCounters()
                if loss[datagram.flow]?.shouldDrop() == true {
                    counter.dropped += 1
                } else {
                    counter.emitted += 1
                    counter.bytesEmitted += datagram.payload.count
                    out.append(datagram)
                }
                counters[datagram.flow] = counter
            }
        }
    }
}
