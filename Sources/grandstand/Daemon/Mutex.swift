import GrandstandConcurrency

/// The executable's lock: the shared pthread mutex of GrandstandConcurrency.
typealias Mutex = GrandstandConcurrency.Lock
