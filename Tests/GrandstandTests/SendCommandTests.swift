import GrandstandCore
import TestSupport
import Testing
@testable import GrandstandStreamer

/// `grandstand send`'s channel specs (no packets sent here); the command line is tested by
/// GrandstandCommandTests' SendCommandLineTests.
struct SendCommandTests {
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
}

/// `--config FILE`: JSON channels become the same specs as the options.
struct SendConfigFileTests {
    @Test func channelsBecomeSpecs() throws {
        let json = """
            {"channels":[{"name":"Bowl","kind":"video","file":"clean.ts","group":"239.255.20.1","port":5000},
                         {"name":"Six","kind":"video","file":"/abs/x.ts","group":"ff15::1","port":5004,"fec":"reed-solomon:k=10,m=2"},
                         {"name":"Scores","kind":"data","group":"239.255.20.2","port":5002},
                         {"name":"Feed","kind":"data","group":"239.255.20.4","port":5006,"file":"feed.jsonl"}]}
            """
        let specs = try SendConfigFile.specs(Array(json.utf8), directory: "/etc/demo")
        #expect(specs.video.map(\.spec) == ["Bowl=/etc/demo/clean.ts@239.255.20.1:5000", "Six=/abs/x.ts@[ff15::1]:5004"])
        #expect(specs.video.map(\.fec) == [nil, "reed-solomon:k=10,m=2"])
        #expect(specs.data == ["Scores@239.255.20.2:5002", "Feed@239.255.20.4:5006=/etc/demo/feed.jsonl"])
        let parsed = try SendSpec.video(specs.video[1].spec)
        #expect(parsed.destination.description == "[ff15::1]:5004")
    }

    @Test func everyBadValueIsReportedWithItsPath() {
        let json = """
            {"channels":[{"name":"A","kind":"video","group":"239.255.20.1","port":5000},
                         {"name":"B","kind":"audio","group":"239.255.20.1","port":70000,"colour":"red"},
                         {"name":"C","kind":"video","file":"c.ts","group":"239.255.20.1","port":5000,"fec":"smpte2022-1:L=30"}]}
            """
        let error = thrownError(SendSpec.Failure.self) { try SendConfigFile.specs(Array(json.utf8), directory: ".") }
        let text = error?.description ?? ""
        #expect(text.contains("$.channels[0].file: a video channel needs a file"), "\(text)")
        #expect(text.contains("$.channels[1].port: 70000 is out of range"), "\(text)")
        #expect(text.contains("$.channels[1].colour: unknown key"), "\(text)")
        #expect(text.contains("$.channels[2].fec: --fec \"smpte2022-1:L=30\": L 30 is out of range 1...20"), "\(text)")
        let broken = thrownError(SendSpec.Failure.self) { try SendConfigFile.specs(Array("{".utf8), directory: ".") }
        #expect(broken?.description.hasPrefix("--config: line 1") == true, "\(String(describing: broken))")
    }
}
