import Testing
@testable import WiFi
