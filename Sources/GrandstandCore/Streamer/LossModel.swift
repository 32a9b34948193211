/// Deterministic packet loss for tests and demos, applied per flow by the scheduler: a drop
/// rate drawn from a seeded PRNG (SplitMix64), every Nth packet, or explicit packet indices.
public struct LossModel: Sendable, Equatable {
    public enum Rule: Sendable, Equatable {
        /// Each packet is dropped with this probability (0…1).
        case rate(Double)
        /// Packets N, 2N, 3N, … (1-based) are dropped: "every 50th".
        case every(Int)
        /// These 0-based packet indices (within the flow) are dropped.
        case indices([ClosedRange<Int>])
    }

    public let rule: Rule
    /// How many packets were judged so far (the index of the next one).
    public private(set) var position = 0
    private var state: UInt64

    public init(rule: Rule, seed: UInt64 = 0) {
        self.rule = rule
        state = seed
    }

    /// The same rule with a seed derived from `seed` and the flow name, so every flow draws its
    /// own sequence and adding a flow does not change the others' losses.
    public static func forFlow(_ rule: Rule, seed: UInt64, flow: String) -> LossModel {
        LossModel(rule: rule, seed: seed ^ FNV.hash64(Array(flow.utf8)))
    }

    /// Parses `every:N` or a comma list of 0-based indices and ranges (`3,10-12`).
    public static func parsePattern(_ text: String) -> Result<Rule, StreamerError> {
        if text.hasPrefix("every:") {
            guard let n = Int(text.dropFirst(6)), n >= 1 else {
                return .failure(StreamerError("drop pattern \"\(text)\": every:N needs N ≥ 1"))
            }
            return .success(.every(n))
        }
        var ranges: [ClosedRange<Int>] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = item.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), low >= 0,
                  let high = bounds.count == 2 ? Int(bounds[1]) : low, high >= low else {
                return .failure(StreamerError("drop pattern \"\(text)\": \"\(item)\" is not an index or range (use every:N or 3,10-12)"))
            }
            ranges.append(low...high)
        }
        return .success(.indices(ranges))
    }

    /// Judges the next packet of the flow.
    public mutating func shouldDrop() -> Bool {
        let index = position
        position += 1
        switch rule {
        case .rate(let p):
            // 53 random bits as a double in [0, 1).
            return Double(nextRandom() >> 11) * 0x1p-53 < p
        case .every(let n):
            return (index + 1) % n == 0
        case .indices(let ranges):
            return ranges.contains { $0.contains(index) }
        }
    }

    /// SplitMix64 (Steele, Lea, Flood 2014): tiny, seedable, good enough for loss patterns.
    private mutating func nextRandom() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// FNV-1a hashes: stable identifiers derived from names and SDP text (SSRCs, session ids, SAP
/// message id hashes) so the same command line gives the same wire bytes.
public enum FNV {
    public static func hash64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    public static func hash32(_ bytes: [UInt8]) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }
}
