import GrandstandCore

/// journald events of ST 2022-7 paths (docs/logging.md): a path down, back up, refused, or the
/// output of a plain-UDP channel failing over.
enum PathEvents {
    static func event(channel: String, _ event: SeamlessMerger.Event) -> GatewayEvent {
        let kind: GatewayEvent.Kind = switch event {
        case .pathDown: .pathDown
        case .pathUp: .pathUp
        case .refused: .pathRefused
        case .failover: .pathFailover
        }
        return GatewayEvent(kind, "channel \(channel): \(event.text)", fields: [("CHANNEL", channel), ("PATH", event.path.description)])
    }
}
