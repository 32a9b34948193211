import Testing
@testable import grandstand
