/// Why a catalog query was refused; each names the offending field, operator or parameter so a
/// client can fix it (answered as HTTP 400 with `{"error": …, "name": …}`).
public enum CatalogQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownField(String)
    case unknownOperator(String, condition: String)
    case operatorNotApplicable(String, field: String, kind: String)
    case badValue(field: String, value: String, expected: String)
    case malformedCondition(String)
    case unknownParameter(String)
    case badParameter(String, value: String, expected: String)
    /// A batch entry failed: its index (from 0) and why.
    indirect case inBatch(index: Int, CatalogQueryError)

    public var description: String {
        switch self {
        case .unknownField(let name): "unknown field \"\(name)\" (fields: \(CatalogField.known))"
        case .unknownOperator(let name, let condition):
            "unknown operator \"\(name)\" in \"\(condition)\" (operators: \(CatalogCondition.Operator.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .operatorNotApplicable(let op, let field, let kind): "operator \"\(op)\" does not apply to \(field) (a \(kind) field)"
        case .badValue(let field, let value, let expected): "bad value \"\(value)\" for \(field): expected \(expected)"
        case .malformedCondition(let text): "malformed condition \"\(text)\": expected field:operator:value"
        case .unknownParameter(let name): "unknown parameter \"\(name)\" (parameters: \(CatalogQuery.parameters))"
        case .badParameter(let name, let value, let expected): "bad \(name) \"\(value)\": expected \(expected)"
        case .inBatch(let index, let error): "query \(index): \(error)"
        }
    }

    /// The field, operator or parameter the error names (the `name` member of the 400 answer);
    /// `(empty)` when the client sent an empty one (e.g. `=x` as a parameter).
    public var name: String {
        let named = rawName
        return named.isEmpty ? "(empty)" : named
    }

    private var rawName: String {
        switch self {
        case .unknownField(let name), .unknownOperator(let name, _), .unknownParameter(let name), .badParameter(let name, _, _): name
        case .operatorNotApplicable(let op, _, _): op
        case .badValue(let field, _, _): field
        case .malformedCondition(let text): text
        case .inBatch(_, let error): error.rawName
        }
    }

    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("error", .string(description)), ("name", .string(name))]
        if case .inBatch(let index, _) = self { members.append(("query", .number(Double(index)))) }
        return .object(members)
    }
}
