/// How late LL-HLS parts are listed: for each part, the wall-clock time it was published minus
/// the arrival (capture time) of its first packet minus its duration — the part cannot be
/// listed before its last frame has arrived and the next one started, so what remains is the
/// gateway's own delay. Keeps the last `capacity` parts; stats in whole milliseconds.
struct PublishLatency {
    private var delays: [Int64] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// Records one part; samples further than a minute off (not live input: tests, replays of
    /// old captures) are ignored.
    mutating func record(publishedNanoseconds: Int64, firstArrivalNanoseconds: Int64, durationNanoseconds: Int64) {
        let delay = publishedNanoseconds - firstArrivalNanoseconds - durationNanoseconds
        guard abs(delay) < 60_000_000_000 else { return }
        if delays.count < capacity {
            delays.append(delay)
        } else {
            delays[next] = delay
            next = (next + 1) % capacity
        }
    }

    var statistics: [(String, Int64)] {
        guard !delays.isEmpty else { return [("hls_part_publish_delay_samples", 0)] }
        let sorted = delays.sorted()
        func percentile(_ p: Double) -> Int64 {
            sorted[min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)] / 1_000_000
        }
        return [("hls_part_publish_delay_samples", Int64(sorted.count)),
                ("hls_part_publish_delay_ms_p50", percentile(0.5)), ("hls_part_publish_delay_ms_p99", percentile(0.99)),
                ("hls_part_publish_delay_ms_max", (sorted.last ?? 0) / 1_000_000)]
    }
}
