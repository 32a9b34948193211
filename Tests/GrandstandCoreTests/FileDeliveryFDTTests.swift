import TestSupport
import Testing
@testable import GrandstandCore

@Suite("FileDelivery FDT/XML/MD5")
struct FileDeliveryFDTTests {
    static let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- an FDT instance as RFC 6726 §3.4.2 shows it -->
        <FDT-Instance xmlns="urn:ietf:params:xml:ns:fdt" xmlns:mbms="urn:3GPP:metadata:2005:MBMS:FLUTE:FDT"
            Expires="2890842807" Content-Type="application/octet-stream" FEC-OTI-FEC-Encoding-ID="0"
            FEC-OTI-Maximum-Source-Block-Length="64" FEC-OTI-Encoding-Symbol-Length="1024">
          <File Content-Location="ccast-timeline.xml" TOI="2" Content-Length="1234" Content-Type="text/xml"
                Content-MD5="1B2M2Y8AsgTpgAmY7PhCfg=="/>
          <File Content-Location="media/clip&amp;1.mp4" TOI="3" Content-Length="99" Transfer-Length="99">
            <mbms:Group>g1</mbms:Group>
          </File>
        </FDT-Instance>
        """

    @Test func parsesAnInstance() throws {
        let fdt = try FDTInstance.parse(Array(Self.sample.utf8)).get()
        #expect(fdt.expires == 2_890_842_807)
        #expect(fdt.files.count == 2)
        #expect(fdt.files[0].contentLocation == "ccast-timeline.xml")
        #expect(fdt.files[0].toi == 2 && fdt.files[0].contentLength == 1234)
        #expect(fdt.files[0].contentType == "text/xml")
        #expect(fdt.files[0].md5 == MD5.digest([UInt8]()))
        #expect(fdt.files[1].contentLocation == "media/clip&1.mp4")
        #expect(fdt.files[1].contentType == "application/octet-stream")   // instance-level default
        #expect(fdt.files[1].objectInfo == FECObjectInfo(encodingID: 0, transferLength: 99, symbolLength: 1024, maxSourceBlockLength: 64))
    }

    @Test func writesWhatItReads() throws {
        let fdt = FDTInstance(expires: 4_000_000_000, files: [
            FDTInstance.File(toi: 7, contentLocation: "a \"b\" <c>.txt", contentLength: 5, transferLength: 5, contentType: "text/plain",
                             md5: MD5.digest(Array("hello".utf8)), fecEncodingID: 5, maxSourceBlockLength: 20, symbolLength: 100,
                             maxEncodingSymbols: 24),
        ])
        #expect(try FDTInstance.parse(fdt.xml()).get() == fdt)
    }

    static let broken: [(String, String)] = [
        ("no root", ""),
        ("wrong root", "<FDT/>"),
        ("no Expires", "<FDT-Instance><File TOI=\"1\" Content-Location=\"a\"/></FDT-Instance>"),
        ("bad Expires", "<FDT-Instance Expires=\"soon\"/>"),
        ("TOI zero", "<FDT-Instance Expires=\"1\"><File TOI=\"0\" Content-Location=\"a\"/></FDT-Instance>"),
        ("TOI twice", "<FDT-Instance Expires=\"1\"><File TOI=\"1\" Content-Location=\"a\"/><File TOI=\"1\" Content-Location=\"b\"/></FDT-Instance>"),
        ("no location", "<FDT-Instance Expires=\"1\"><File TOI=\"1\"/></FDT-Instance>"),
        ("bad MD5", "<FDT-Instance Expires=\"1\"><File TOI=\"1\" Content-Location=\"a\" Content-MD5=\"abc\"/></FDT-Instance>"),
        ("bad length", "<FDT-Instance Expires=\"1\"><File TOI=\"1\" Content-Location=\"a\" Content-Length=\"-1\"/></FDT-Instance>"),
        ("mismatched tag", "<FDT-Instance Expires=\"1\"></FDT>"),
        ("unclosed", "<FDT-Instance Expires=\"1\">"),
        ("duplicate attribute", "<FDT-Instance Expires=\"1\" Expires=\"2\"/>"),
        ("unquoted", "<FDT-Instance Expires=1/>"),
        ("unknown entity", "<FDT-Instance Expires=\"1\"><File TOI=\"1\" Content-Location=\"&nbsp;\"/></FDT-Instance>"),
        ("DTD", "<!DOCTYPE x [<!ENTITY a \"b\">]><FDT-Instance Expires=\"1\"/>"),
        ("two roots", "<FDT-Instance Expires=\"1\"/><FDT-Instance Expires=\"1\"/>"),
        ("lt in attribute", "<FDT-Instance Expires=\"1<\"/>"),
    ]

    @Test(arguments: 0..<17) func refusesBrokenInstances(_ index: Int) {
        let (name, text) = Self.broken[index]
        if case .success = FDTInstance.parse(Array(text.utf8)) { Issue.record("\(name) accepted") }
    }

    @Test func everyPrefixIsRefusedAndNothingTraps() {
        let bytes = Array(Self.sample.utf8)
        for cut in stride(from: 0, to: bytes.count, by: TestEnvironment.sweepStep) {
            if case .success = FDTInstance.parse(Array(bytes[..<cut])) {
                // Only a cut inside trailing whitespace can still be a whole document.
                #expect(bytes[cut...].allSatisfy { $0 == 0x20 || $0 == 0x0A }, "prefix \(cut) accepted")
            }
        }
        var rng = SplitMix(seed: 7)
        for _ in 0..<(2_000 / TestEnvironment.sweepStep) {
            var mutated = bytes
            mutated[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            _ = FDTInstance.parse(mutated)
        }
    }

    @Test func deepNestingIsRefused() {
        let text = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        #expect(XMLSubset.parse(Array(text.utf8)).failure?.reason.contains("deeper") == true)
    }

    @Test func entitiesAndCDATA() throws {
        let root = try XMLSubset.parse(Array("<r a='&#65;&#x42;&lt;&apos;'>x<![CDATA[<y>]]>&amp;</r>".utf8)).get()
        #expect(root.attribute("a") == "AB<'")
        #expect(root.text == "x<y>&")
    }

    /// RFC 1321 Appendix A.5 test suite.
    static let md5Vectors: [(String, String)] = [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ]

    @Test(arguments: 0..<7) func md5MatchesRFC1321(_ index: Int) {
        let (input, hex) = Self.md5Vectors[index]
        let digest = MD5.digest(Array(input.utf8)).map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        #expect(digest == hex)
    }

    @Test func md5IncrementalEqualsOneShot() {
        let data = FluteTesting.bytes(1_000, seed: 3)
        var md5 = MD5()
        for chunk in stride(from: 0, to: data.count, by: 37) { md5.update(data[chunk..<min(data.count, chunk + 37)]) }
        #expect(md5.finalize() == MD5.digest(data))
    }

    @Test func base64() {
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fooba".utf8)) == "Zm9vYmE=")
        #expect(Base64.encode(Array("foob".utf8)) == "Zm9vYg==")
        #expect(Base64.decode("Zm9vYg==") == Array("foob".utf8))
        #expect(Base64.decode("Zm9v=mE=") == nil)
        #expect(Base64.decode("Zm9") == nil)
    }
}
