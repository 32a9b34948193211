// GatewayConfig.decode (JSON parser, JSON-path issues, every field's validation) and the board
// description on any bytes; a rejected document always says why.
@testable import GrandstandCore

func fuzzOne(_ bytes: [UInt8]) {
    do {
        let config = try GatewayConfig.decode(bytes)
        _ = RegistryPolicy(config: config)
        _ = IngestConfiguration(config: config)
    } catch {
        require(!error.issues.isEmpty, "a rejected config names at least one issue")
        _ = error.description
    }
    do {
        _ = try BoardDescription.decode(bytes)
    } catch {
        require(!error.issues.isEmpty, "a rejected board names at least one issue")
    }
}
