import Testing
@testable import GrandstandCore

@Suite struct FECAnnouncementTests {
    @Test(arguments: [
        ("scheme=rs;k=20;m=5", FECAnnouncement.reedSolomon(sourceCount: 20, repairCount: 5, port: 5002, payloadType: 97)),
        ("pt=100; port=6000 ;m=10;k=50;scheme=RS;future=1",
         .reedSolomon(sourceCount: 50, repairCount: 10, port: 6000, payloadType: 100)),
        ("scheme=smpte2022-1;l=4;d=3", .smpte2022(columns: 4, rows: 3, columnPort: 5002, rowPort: 5004, payloadType: 96)),
        ("scheme=smpte2022-1;l=10;d=10;row-port=none;column-port=7002",
         .smpte2022(columns: 10, rows: 10, columnPort: 7002, rowPort: nil, payloadType: 96)),
    ])
    func valuesParse(value: String, expected: FECAnnouncement) throws {
        let parsed = try FECAnnouncement.parse(value, mediaPort: 5000).get()
        #expect(parsed == expected)
        #expect(try FECAnnouncement.parse(parsed.attributeValue, mediaPort: 1).get() == expected)
    }

    @Test(arguments: [
        ("k=20;m=5", "'scheme' is missing"),
        ("scheme=xor;k=1", "unknown scheme 'xor'"),
        ("scheme=rs;k=20", "'m' is missing"),
        ("scheme=rs;k=0;m=5", "'k=0' is not a number in 1…255"),
        ("scheme=rs;k=20;m=5;port=70000", "'port=70000' is not a number in 1…65535"),
        ("scheme=rs;k=20;m=5;k=3", "'k' appears twice"),
        ("scheme=rs;k", "item 'k' is not key=value"),
        ("scheme=smpte2022-1;l=4;d=x", "'d=x' is not a number in 1…255"),
    ])
    func badValuesSayWhy(value: String, reason: String) {
        let error = FECAnnouncement.parse(value, mediaPort: 5000).failure
        #expect(error?.reason == reason)
        #expect(error?.description == "x-grandstand-fec: \(reason)")
    }

    @Test func repairPortsListEveryFlow() throws {
        #expect(try FECAnnouncement.parse("scheme=smpte2022-1;l=4;d=3", mediaPort: 5000).get().repairPorts == [5002, 5004])
        #expect(try FECAnnouncement.parse("scheme=rs;k=4;m=1;port=9", mediaPort: 5000).get().repairPorts == [9])
    }
}
