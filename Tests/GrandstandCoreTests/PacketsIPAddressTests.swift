import Testing
@testable import GrandstandCore

struct PacketsIPAddressTests {
    @Test(arguments: [
        ("239.255.20.1", "239.255.20.1"), ("0.0.0.0", "0.0.0.0"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"), ("ff15::20:7", "ff15::20:7"), ("::", "::"), ("::1", "::1"),
        ("2001:db8:0:1:0:0:1:1", "2001:db8:0:1::1:1"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("::ffff:192.0.2.1", "::ffff:c000:201"), ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
    ])
    func parsesAndFormats(text: String, formatted: String) throws {
        #expect(try #require(IPAddress(parsing: text)).description == formatted)
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.256", "1.2.3.4.5", "01234.1.1.1", "1::2::3", "1:2:3:4:5:6:7:8:9",
                      ":1", "1:", "12345::", "g::", "1:2:3:4:5:6:7::8", "a.b.c.d"])
    func rejects(text: String) {
        #expect(IPAddress(parsing: text) == nil)
    }

    @Test func multicast() {
        #expect(IPAddress(parsing: "224.0.0.1")?.isMulticast == true)
        #expect(IPAddress(parsing: "223.255.255.255")?.isMulticast == false)
        #expect(IPAddress(parsing: "ff02::1")?.isMulticast == true)
        #expect(IPAddress(parsing: "fe80::1")?.isMulticast == false)
    }
}
