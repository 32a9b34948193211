/// `Router`'s lookup over route indices: which pattern a path matches (the most specific),
/// which route of that resource takes the method, and the `Allow` lists (RFC 9110 §10.2.1).
/// Every request is matched against every pattern, so the patterns are compiled into flat
/// arrays of plain values (no reference counting in the loop).
struct RouteTable: Sendable {
    enum Lookup {
        case matched(Int, RouteParameters)
        case notFound
        case methodNotAllowed([String])
        case options([String])
    }

    let methods: [[String]]
    let patterns: [RoutePattern]
    /// Per route, the index of the first route with the same pattern shape: its resource.
    let resources: [Int]
    /// The listener's methods accepted on every path as an `Allow` list, when it limits them.
    let acceptedAllow: [String]?
    /// Per route (read at its resource's index), every method the listener accepts there: the
    /// `everywhere` ones plus those `AcceptedMethods.more` opens on that pattern, as an `Allow`
    /// list. Empty when the listener does not limit methods.
    let acceptedAt: [[String]]
    /// The methods `AcceptedMethods.more` opens on some pattern.
    let openedSomewhere: Set<String>
    /// Per route, where its segments start in `ranks`/`literals`, how many, and whether the
    /// last is `*`; per segment its rank (2 literal, 1 capture, 0 rest) and a literal's bytes
    /// in `literalBytes`.
    private let firstSegment: [Int]
    private let segmentCount: [Int]
    private let endsInRest: [Bool]
    private let ranks: [UInt8]
    private let literals: [Range<Int>]
    private let literalBytes: [UInt8]

    init(_ routes: [(methods: [String], pattern: RoutePattern)], acceptedMethods: AcceptedMethods?) {
        methods = routes.map(\.methods)
        patterns = routes.map(\.pattern)
        let patterns = self.patterns
        resources = patterns.map { pattern in patterns.firstIndex { $0.hasSameShape(as: pattern) } ?? 0 }
        acceptedAllow = acceptedMethods.map { Self.allowed($0.everywhere) }
        let opened = (acceptedMethods?.more ?? [:]).map { (pattern: RoutePattern($0.key), methods: $0.value) }
        acceptedAt = acceptedMethods.map { accepted in
            patterns.map { pattern in
                Self.allowed(accepted.everywhere + opened.filter { $0.pattern.hasSameShape(as: pattern) }.flatMap(\.methods))
            }
        } ?? []
        openedSomewhere = Set(opened.flatMap { Self.allowed($0.methods) })
        var firstSegment: [Int] = [], ranks: [UInt8] = [], literals: [Range<Int>] = [], bytes: [UInt8] = []
        for pattern in patterns {
            firstSegment.append(ranks.count)
            for segment in pattern.segments {
                ranks.append(segment.rank)
                let start = bytes.count
                if case .literal(let text) = segment { bytes += text.utf8 }
                literals.append(start..<bytes.count)
            }
        }
        self.firstSegment = firstSegment
        segmentCount = patterns.map(\.segments.count)
        endsInRest = patterns.map { $0.segments.last == .rest }
        self.ranks = ranks
        self.literals = literals
        literalBytes = bytes
    }

    func resolve(method: String, path: String) -> Lookup {
        // A listener that opens nothing per path refuses other methods before any lookup; one
        // that does looks the path up, so a 405's `Allow` names what that resource takes.
        if let acceptedAllow, !acceptedAllow.contains(method), openedSomewhere.isEmpty { return .methodNotAllowed(acceptedAllow) }
        if path == "*" {
            // §9.3.7: OPTIONS * asks about the server, not a resource: whatever it takes somewhere.
            guard method == "OPTIONS" else { return notFound(method) }
            return .options(acceptedAllow.map { Self.allowed($0 + openedSomewhere) } ?? Self.allowed(methods.flatMap { $0 }))
        }
        guard path.utf8.first == UInt8(ascii: "/") else { return notFound(method) }
        var path = path
        return path.withUTF8 { bytes in resolve(method: method, bytes) }
    }

    /// No resource at the path: 404, or 405 for a method the listener takes on other paths only.
    private func notFound(_ method: String) -> Lookup {
        guard let acceptedAllow, !acceptedAllow.contains(method) else { return .notFound }
        return .methodNotAllowed(acceptedAllow)
    }

    /// `resolve` on the path's UTF-8 bytes (they start with `/`).
    private func resolve(method: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Lookup {
        let segments = Self.split(bytes)
        var best: Int?
        for route in firstSegment.indices where matches(route, bytes, segments) {
            if let current = best, !isMoreSpecific(route, than: current) { continue }
            best = route
        }
        guard let best else { return notFound(method) }
        // Every route with the winning pattern's shape serves the same resource; HEAD falls back
        // to its first GET route. The listener's limits first: only what it accepts here counts.
        let resource = resources[best]
        let accepted = acceptedAt.isEmpty ? nil : acceptedAt[resource]
        func allow() -> [String] {
            Self.allowed(resources.indices.filter { resources[$0] == resource }.flatMap { methods[$0] }.filter { accepted?.contains($0) ?? true })
        }
        if let accepted, !accepted.contains(method) { return .methodNotAllowed(allow()) }
        var get: Int?
        for route in resources.indices where resources[route] == resource {
            if methods[route].contains(method) { return .matched(route, patterns[route].captures(bytes, segments)) }
            if get == nil, methods[route].contains("GET") { get = route }
        }
        if method == "HEAD", let get { return .matched(get, patterns[get].captures(bytes, segments)) }
        return method == "OPTIONS" ? .options(allow()) : .methodNotAllowed(allow())
    }

    /// Whether route `route`'s pattern matches the path `bytes` cut into `segments`.
    private func matches(_ route: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ segments: [Range<Int>]) -> Bool {
        let count = segmentCount[route]
        guard endsInRest[route] ? segments.count >= count : segments.count == count else { return false }
        let first = firstSegment[route]
        for index in 0..<count {
            let range = segments[index]
            switch ranks[first + index] {
            case 0:
                // `*`: the rest joined with "/" is not empty (two segments or more, or one non-empty).
                return segments.count - index > 1 || !range.isEmpty
            case 1:
                guard !range.isEmpty else { return false }
            default:
                let literal = literals[first + index]
                guard literal.count == range.count else { return false }
                for offset in 0..<literal.count where literalBytes[literal.lowerBound + offset] != bytes[range.lowerBound + offset] {
                    return false
                }
            }
        }
        return true
    }

    /// `RoutePattern.isMoreSpecific` on the compiled ranks.
    private func isMoreSpecific(_ route: Int, than other: Int) -> Bool {
        let count = segmentCount[route], otherCount = segmentCount[other]
        for index in 0..<Swift.min(count, otherCount) {
            let mine = ranks[firstSegment[route] + index], theirs = ranks[firstSegment[other] + index]
            if mine != theirs { return mine > theirs }
        }
        return count > otherCount
    }

    /// The byte ranges of the segments after the leading `/`, empty ones kept (split on bytes:
    /// `/` is ASCII, and splitting a String by Character costs grapheme breaking).
    static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var segments: [Range<Int>] = []
        segments.reserveCapacity(8)
        var start = 1
        for index in 1..<Swift.max(1, bytes.count) where bytes[index] == UInt8(ascii: "/") {
            segments.append(start..<index)
            start = index + 1
        }
        segments.append(start..<Swift.max(start, bytes.count))
        return segments
    }

    static func allowed(_ methods: [String]) -> [String] {
        var set = Set(methods)
        if set.contains("GET") { set.insert("HEAD") }
        set.insert("OPTIONS")
        let order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
        let known = order.filter(set.contains)
        let others = set.subtracting(order).subtracting(["OPTIONS"]).sorted()
        return known + others + ["OPTIONS"]
    }
}
