import Testing
@testable import ErasureCoding
