/// The methods a listener takes at all, before its routes are asked: `everywhere` on every path,
/// and `more` only on the resources whose patterns are listed (the fan listener serves reads,
/// and `POST` on `/items` alone: a fan's item request, docs/cache.md "Fans"). A method outside
/// both is 405 whatever the path, known or not, so a route added later with another method
/// does not open it by accident; the `Allow` lists only name what the path accepts (RFC 9110
/// §10.2.1, §15.5.6). Written as an array literal: `["GET"]` on every path, nothing more.
public struct AcceptedMethods: Sendable, Equatable, ExpressibleByArrayLiteral {
    public var everywhere: [String]
    /// Route patterns (as the routes spell them, captures of any name) → the extra methods there.
    public var more: [String: [String]]

    public init(_ everywhere: [String], more: [String: [String]] = [:]) {
        self.everywhere = everywhere
        self.more = more
    }

    public init(arrayLiteral methods: String...) { self.init(methods) }
}
