import ErasureCoding
import GrandstandCore

extension IngestConfiguration {
    /// The pipeline the product runs (daemon, listen, replay): the configuration's policy, or
    /// the permissive diagnostic default without one, with FEC repair on ISA-L
    /// (docs/fec.md) for channels that announce it.
    public static func product(_ config: GatewayConfig?) -> IngestConfiguration {
        let math: @Sendable () -> any ReedSolomonMath = { ISALReedSolomonMath() }
        guard let config else { return IngestConfiguration(recovery: FECRecovery.factory(math: math)) }
        return IngestConfiguration(config: config, recovery: FECRecovery.factory(configuration: config.fec, math: math))
    }
}
