import GrandstandCore
import Testing

@Suite struct MACAddressTests {
    @Test(arguments: ["02:00:00:00:01:00", "02-00-00-00-01-00", "02:00:00:00:01:00".uppercased()])
    func parsesAndPrintsLikeIw(_ text: String) throws {
        let mac = try #require(MACAddress(text))
        #expect(mac.bytes == [0x02, 0, 0, 0, 0x01, 0])
        #expect(mac.description == "02:00:00:00:01:00")
    }

    @Test(arguments: ["", "02:00:00:00:01", "02:00:00:00:01:00:00", "0g:00:00:00:01:00", "2:0:0:0:1:0", "02:00-00:00:01:0"])
    func rejectsMalformed(_ text: String) {
        #expect(MACAddress(text) == nil)
    }
}
