import GrandstandRuntime

/// The executable's lock: the shared pthread mutex of GrandstandRuntime.
typealias Mutex = GrandstandRuntime.Lock
