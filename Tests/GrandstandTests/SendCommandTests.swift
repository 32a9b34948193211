import ArgumentParser
import GrandstandCore
import Testing
@testable import grandstand

/// `grandstand send` argument parsing and validation (no packets sent here).
struct SendCommandTests {
    @Test func helpListsSend() {
        #expect(Grandstand.helpMessage().contains("send"))
    }

    @Test func channelSpecsParse() throws {
        let video = try SendSpec.video("Bowl Cam=/tmp/a=b.ts@239.255.20.1:5000")
        #expect(video == .init(name: "Bowl Cam", file: "/tmp/a=b.ts", destination: Endpoint(address: .v4(0xEFFF_1401), port: 5000)))
        let v6 = try SendSpec.video("Six=x.ts@[ff15::1]:5004")
        #expect(v6.destination.description == "[ff15::1]:5004")
        let counter = try SendSpec.data("Scores@239.255.20.2:5002")
        #expect(counter.file == nil && counter.destination.port == 5002)
        let file = try SendSpec.data("Scores@239.255.20.2:5002=/tmp/scores.jsonl")
        #expect(file.file == "/tmp/scores.jsonl")
        let license = try SendSpec.license("Demo Stadium/Owner/App")
        #expect(license == LicenseTriplet(venueName: "Demo Stadium", contentOwner: "Owner", appDeveloper: "App"))
    }

    @Test(arguments: [
        ("video", "Bowl@239.255.20.1:5000", "expected NAME=FILE@GROUP:PORT"),
        ("video", "=x.ts@239.255.20.1:5000", "must not be empty"),
        ("video", "B=x.ts@10.0.0.1:5000", "10.0.0.1 is not a multicast group"),
        ("video", "B=x.ts@239.255.20.1:0", "is not a port"),
        ("video", "B=x.ts@239.255.20.1", "is not GROUP:PORT"),
        ("video", "B=x.ts@ff15::1:5000", "IPv6 groups go in brackets"),
        ("video", "B=x.ts@239.255.20:5000", "is not an IP address"),
        ("data", "Scores", "expected NAME@GROUP:PORT[=FILE]"),
        ("data", "S@239.255.20.2:5002=", "must not be empty"),
        ("license", "a/b", "three non-empty parts"),
    ])
    func badSpecsSayWhy(kind: String, text: String, reason: String) {
        let error = thrownSpecError(kind: kind, text: text)
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
    }

    func thrownSpecError(kind: String, text: String) -> SendSpec.Failure? {
        do throws(SendSpec.Failure) {
            switch kind {
            case "video": _ = try SendSpec.video(text)
            case "data": _ = try SendSpec.data(text)
            default: _ = try SendSpec.license(text)
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func optionsParseAndValidate() throws {
        let command = try #require(try Grandstand.parseAsRoot([
            "send", "--interface", "lo", "--video", "A=a.ts@239.255.20.1:5000", "--video", "B=a.ts@239.255.20.3:5000",
            "--data", "S@239.255.20.2:5002", "--compress", "--drop-rate", "0.02", "--seed", "9", "--count", "2",
            "--sap-interval", "0.5", "--duration", "3", "--ttl", "1",
        ]) as? SendCommand)
        #expect(command.video.count == 2)
        #expect(command.compress && command.dropRate == 0.02 && command.seed == 9 && command.count == 2)
        #expect(command.sapGroup == "239.255.255.255")
        #expect(command.license == "Demo Stadium/Grandstand/Grandstand")
    }

    @Test(arguments: [
        ["send"],
        ["send", "--video", "A=a.ts@239.255.20.1:5000", "--loop", "--count", "2"],
        ["send", "--video", "A=a.ts@239.255.20.1:5000", "--drop-rate", "1.5"],
        ["send", "--video", "A=a.ts@239.255.20.1:5000", "--drop-rate", "0.1", "--drop-pattern", "every:3"],
        ["send", "--video", "A=a.ts@239.255.20.1:5000", "--ttl", "300"],
        ["send", "--video", "A=a.ts@239.255.20.1:5000", "--count", "0"],
    ])
    func contradictoryOptionsAreRejected(arguments: [String]) {
        #expect(throws: (any Error).self) { try Grandstand.parseAsRoot(arguments) }
    }
}
