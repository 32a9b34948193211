import GrandstandCore
import RAUC

/// What the update service needs of the installer on the box (RAUC over D-Bus in the product;
/// a fake in tests). Errors carry a message an operator can act on.
public protocol SlotUpdater: Sendable {
    func install(_ source: String) throws
    /// `idle` or `installing`.
    func operation() throws -> String
    /// The last installation's error; empty when it succeeded.
    func lastError() throws -> String
    func progress() throws -> (percent: Int, message: String)
    func slots() throws -> [SlotStatus]
    /// `good` or `bad` for the booted slot; RAUC's message.
    func markBooted(_ state: String) throws -> String
}

/// One root slot as the update service reports it.
public struct SlotStatus: Sendable, Equatable {
    public var name: String
    /// The boot loader's name for it (`A`, `B`).
    public var bootname: String
    /// `booted`, `inactive`, `active`.
    public var state: String
    /// `good` or `bad` in the boot loader (GRUB: X_OK=1 and X_TRY=0 is good).
    public var bootStatus: String
    /// The version of the bundle last written to it, when RAUC knows.
    public var version: String?

    public init(name: String, bootname: String, state: String, bootStatus: String, version: String? = nil) {
        self.name = name
        self.bootname = bootname
        self.state = state
        self.bootStatus = bootStatus
        self.version = version
    }

    public var json: JSONValue {
        .object([("name", .string(name)), ("bootname", .string(bootname)), ("state", .string(state)),
                 ("bootStatus", .string(bootStatus)), ("version", version.map(JSONValue.string) ?? .null)])
    }
}

extension RAUCInstaller: SlotUpdater {
    public func install(_ source: String) throws { try installBundle(source) }
    public func operation() throws -> String { try property("Operation") }
    public func lastError() throws -> String { try property("LastError") }
    public func progress() throws -> (percent: Int, message: String) {
        let (percent, message, _) = try installProgress()
        return (percent, message)
    }
    public func slots() throws -> [SlotStatus] {
        try slotStatus().map { slot in
            SlotStatus(name: slot.name, bootname: slot.facts["bootname"] ?? "", state: slot.facts["state"] ?? "",
                       bootStatus: slot.facts["boot-status"] ?? "", version: slot.facts["bundle.version"])
        }
    }
    public func markBooted(_ state: String) throws -> String { try mark(state, slot: "booted") }
}

/// What the multicast update side needs to verify a bundle heard on the update channel (RAUC's
/// `InspectBundle` and `Compatible` in the product; a fake in tests).
public protocol BundleInspector: Sendable {
    /// Verifies the bundle at `path` (signature against the keyring) and describes it; throws
    /// RAUC's reason when it does not trust or cannot read it.
    func inspect(_ path: String) throws -> BundleInfo
    /// The booted system's compatible string (`/etc/rauc/system.conf`).
    func systemCompatible() throws -> String
}

extension RAUCInstaller: BundleInspector {
    public func inspect(_ path: String) throws -> BundleInfo { try inspectBundle(path) }
    public func systemCompatible() throws -> String { try property("Compatible") }
}
