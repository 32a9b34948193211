import Testing
@testable import GrandstandCore
