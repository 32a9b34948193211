import ErasureCoding
import GrandstandCore

extension IngestConfiguration {
    /// The pipeline the product runs (daemon, listen, replay): the configuration's policy, or
    /// the permissive diagnostic default without one, with FEC repair on ISA-L
    /// (docs/fec.md) for channels that announce it.
    static func product(_ config: GatewayConfig?) -> IngestConfiguration {
        let recovery = FECRecovery.factory(math: { ISALReedSolomonMath() })
        guard let config else { return IngestConfiguration(recovery: recovery) }
        return IngestConfiguration(config: config, recovery: recovery)
    }
}
