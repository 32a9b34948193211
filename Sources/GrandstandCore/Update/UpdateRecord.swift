/// What the daemon keeps on the data partition (`stateDirectory/update.json`) between an install
/// and the boot that decides it: which slot got which version, and from which slot. Read at the
/// next start to tell a committed update from a rollback (docs/updates.md).
public struct UpdateRecord: Sendable, Equatable {
    /// The slot the bundle was written to (`rootfs.1`).
    public var slot: String
    /// The bundle's version.
    public var version: String
    /// The slot that was booted while installing (`rootfs.0`).
    public var from: String
    /// Wall-clock seconds of the install's completion.
    public var installedAt: Double

    public init(slot: String, version: String, from: String, installedAt: Double) {
        self.slot = slot
        self.version = version
        self.from = from
        self.installedAt = installedAt
    }

    /// After a reboot: the update is on trial (booted the new slot), or rolled back (booted
    /// another slot: the boot loader or the daemon gave up on it).
    public enum Outcome: Sendable, Equatable {
        case onTrial
        case rolledBack
    }

    public func outcome(booted: String) -> Outcome { booted == slot ? .onTrial : .rolledBack }

    public var json: JSONValue {
        .object([("slot", .string(slot)), ("version", .string(version)), ("from", .string(from)),
                 ("installedAt", .number(installedAt))])
    }

    public init?(json: JSONValue) {
        guard case .string(let slot)? = json["slot"], case .string(let version)? = json["version"],
              case .string(let from)? = json["from"], case .number(let at)? = json["installedAt"] else { return nil }
        self.init(slot: slot, version: version, from: from, installedAt: at)
    }
}
