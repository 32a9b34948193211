/// A bundle's `version` (RAUC manifest `[update] version`) ordered the way a release counts:
/// dotted numbers compared as numbers, so `0.10.0` is newer than `0.9.3`. The text is cut into
/// runs of digits and runs of letters (any other character only separates); runs compare
/// pairwise, numbers by value, words by text, a number above a word (`1.0.1` > `1.0.rc`), and a
/// version that goes on after an equal prefix is the newer one (`0.1.0+vmtest.1` > `0.1.0`).
public struct BundleVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    enum Part: Sendable, Equatable {
        case number(UInt64)
        case word(String)
    }

    public let description: String
    let parts: [Part]

    public init(_ text: String) {
        description = text
        var parts: [Part] = []
        var run = "", digits = false
        func flush() {
            guard !run.isEmpty else { return }
            // A run of digits past 64 bits is kept as a word (no release numbers its versions so).
            parts.append(digits ? (UInt64(run).map(Part.number) ?? .word(run)) : .word(run))
            run = ""
        }
        for scalar in text.unicodeScalars {
            let isDigit = ("0"..."9").contains(scalar)
            let isLetter = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
            guard isDigit || isLetter else { flush(); continue }
            if !run.isEmpty && isDigit != digits { flush() }
            digits = isDigit
            run.unicodeScalars.append(scalar)
        }
        flush()
        self.parts = parts
    }

    public static func == (lhs: BundleVersion, rhs: BundleVersion) -> Bool { lhs.parts == rhs.parts }

    public static func < (lhs: BundleVersion, rhs: BundleVersion) -> Bool {
        for (left, right) in zip(lhs.parts, rhs.parts) where left != right {
            switch (left, right) {
            case (.number(let a), .number(let b)): return a < b
            case (.word(let a), .word(let b)): return a < b
            case (.word, .number): return true
            case (.number, .word): return false
            }
        }
        return lhs.parts.count < rhs.parts.count
    }
}
