/// Which programs of a multi-program transport stream become channels of their own
/// (docs/ingest.md, "Multi-program TS"): a static channel's `programs`, `discovery.programs`
/// for announced ones.
public enum ProgramSelection: Sendable, Equatable, CustomStringConvertible {
    /// One channel per program when the PAT lists more than one; a single-program stream stays
    /// the channel it was announced as.
    case auto
    /// The multiplex stays one channel, every program in its segments.
    case whole
    /// One channel for each of these program_numbers that the PAT lists, even just one.
    case only([UInt16])

    /// Whether program `number` becomes a channel once the stream is split.
    func admits(_ number: UInt16) -> Bool {
        if case .only(let numbers) = self { return numbers.contains(number) }
        return true
    }

    /// `"auto"`, `"whole"` or the program numbers, as the configuration writes them.
    public var json: JSONValue {
        switch self {
        case .auto: .string("auto")
        case .whole: .string("whole")
        case .only(let numbers): .array(numbers.map { .number(Double($0)) })
        }
    }

    public var description: String {
        switch self {
        case .auto: "auto"
        case .whole: "whole"
        case .only(let numbers): numbers.map(String.init).joined(separator: ",")
        }
    }
}
