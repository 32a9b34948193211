/// One metric family of the Prometheus text exposition format 0.0.4: a name, its HELP and TYPE,
/// and samples that differ by their labels.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable { case counter, gauge }

    public struct Sample: Sendable, Equatable {
        public var labels: [Label]
        public var value: Double

        public init(_ labels: [Label] = [], _ value: Double) {
            self.labels = labels
            self.value = value
        }
    }

    public struct Label: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(name: String, help: String, kind: Kind, samples: [Sample]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }
}

/// Renders metric families as Prometheus text (`text/plain; version=0.0.4`): HELP and TYPE
/// once per family, names made legal, label values and help text escaped as the format requires.
public enum PrometheusText {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ families: [MetricFamily]) -> String {
        var out = ""
        for family in families where !family.samples.isEmpty {
            let name = metricName(family.name)
            out += "# HELP \(name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                out += name
                if !sample.labels.isEmpty {
                    out += "{" + sample.labels.map { "\(labelName($0.name))=\"\(escapeLabelValue($0.value))\"" }
                        .joined(separator: ",") + "}"
                }
                out += " " + value(sample.value) + "\n"
            }
        }
        return out
    }

    /// Label values escape backslash, double quote and line feed (exposition format 0.0.4).
    public static func escapeLabelValue(_ text: String) -> String { escape(text, quotes: true) }

    /// HELP text escapes backslash and line feed only.
    public static func escapeHelp(_ text: String) -> String { escape(text, quotes: false) }

    private static func escape(_ text: String, quotes: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A legal metric name `[a-zA-Z_:][a-zA-Z0-9_:]*`: other characters become `_`.
    public static func metricName(_ text: String) -> String { legal(text, colons: true) }

    /// A legal label name `[a-zA-Z_][a-zA-Z0-9_]*`.
    public static func labelName(_ text: String) -> String { legal(text, colons: false) }

    /// Integral values without a fraction; `+Inf`, `-Inf`, `NaN` as the format spells them.
    public static func value(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number > 0 ? "+Inf" : "-Inf" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }

    private static func legal(_ text: String, colons: Bool) -> String {
        var out = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            let letter = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
                || (colons && scalar == ":")
            let digit = scalar >= "0" && scalar <= "9"
            if letter || (digit && index > 0) {
                out.unicodeScalars.append(scalar)
            } else {
                out += digit ? "_" + String(scalar) : "_"
            }
        }
        return out.isEmpty ? "_" : out
    }
}
