import Testing
@testable import GPIO
