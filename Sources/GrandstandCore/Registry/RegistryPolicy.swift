/// What the registry admits and when it retires channels, taken from the configuration
/// (`license`, `streamers.allow`, `discovery`). Times are nanoseconds.
public struct RegistryPolicy: Sendable, Equatable {
    /// The box's triplet; nil when no configuration is given (replay without `--config`): then
    /// any license, or none, is admitted.
    public var license: LicenseTriplet?
    /// `license.required`: when false, channels without a license attribute are admitted too.
    public var licenseRequired: Bool
    public var allow: [AddressPattern]
    public var retireMinimumNanoseconds: Int64
    public var retireIntervalMultiple: Int64
    /// `discovery.programs`: how announced multi-program streams are split.
    public var programs: ProgramSelection

    public init(license: LicenseTriplet?, licenseRequired: Bool = true, allow: [AddressPattern] = [.any],
                retireMinimumSeconds: Int = 60, retireIntervalMultiple: Int = 10, programs: ProgramSelection = .auto) {
        self.license = license
        self.licenseRequired = licenseRequired
        self.allow = allow
        self.retireMinimumNanoseconds = Int64(retireMinimumSeconds) * 1_000_000_000
        self.retireIntervalMultiple = Int64(retireIntervalMultiple)
        self.programs = programs
    }

    public init(config: GatewayConfig) {
        self.init(license: config.license.triplet, licenseRequired: config.license.required, allow: config.streamers.allow,
                  retireMinimumSeconds: config.discovery.retireMinimumSeconds,
                  retireIntervalMultiple: config.discovery.retireIntervalMultiple, programs: config.discovery.programs)
    }

    /// No license enforcement, every streamer allowed, default retirement.
    public static let permissive = RegistryPolicy(license: nil)

    public func allows(streamer: IPAddress) -> Bool { allow.contains { $0.matches(streamer) } }

    /// Why an announcement's license refuses it, or nil when admitted.
    public func licenseProblem(_ announcement: ChannelAnnouncement) -> String? {
        guard let license else { return nil }
        if let error = announcement.licenseError { return error.description }
        guard let announced = announcement.license else {
            return licenseRequired ? "no \(LicenseTriplet.attributeName) attribute (license.required is true)" : nil
        }
        return announced == license ? nil : "license triplet does not match this box"
    }

    /// The retire timeout for a session announced every `interval` (nil: not yet known):
    /// max(multiple × interval, minimum).
    public func retireTimeout(interval: Int64?) -> Int64 {
        guard let interval, interval > 0 else { return retireMinimumNanoseconds }
        let (scaled, overflow) = interval.multipliedReportingOverflow(by: retireIntervalMultiple)
        return overflow ? Int64.max : max(scaled, retireMinimumNanoseconds)
    }
}
