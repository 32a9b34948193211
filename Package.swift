// swift-tools-version:6.0
// Grandstand: the userland of a venue gateway. Builds with Swift 6.3.1 (host) and 6.0.3 (arm64
// cross, Debian trixie); keep to tools 6.0 and dependencies whose manifests accept it.
import PackageDescription

/// A Debian/Ubuntu `-dev` package as a SwiftPM system-library provider.
func apt(_ names: String...) -> [SystemPackageProvider] { [.apt(names)] }

let package = Package(
    name: "Grandstand",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "grandstand", targets: ["grandstand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // MARK: Pure core: formats, state machines, policy. No I/O, no C libraries, time passed in.
        .target(name: "GrandstandCore", path: "Sources/GrandstandCore"),
        // The service runtime: named service threads with a stop/join contract, the clock services
        // read (system or manual), stop signals every wait sits on, and the shared lock.
        .target(name: "GrandstandRuntime", dependencies: ["CGSRuntime"], path: "Sources/GrandstandRuntime"),

        // MARK: C libraries: [system] module maps (pkg-config + apt) and small prefixed shims.
        .systemLibrary(name: "CGSPcap", path: "Sources/CLibraries/CGSPcap",
                       pkgConfig: "libpcap", providers: apt("libpcap-dev")),
        .systemLibrary(name: "CGSSystemd", path: "Sources/CLibraries/CGSSystemd",
                       pkgConfig: "libsystemd", providers: apt("libsystemd-dev")),
        .systemLibrary(name: "CGSAVCodec", path: "Sources/CLibraries/CGSAVCodec",
                       pkgConfig: "libavcodec libavutil", providers: apt("libavcodec-dev", "libavutil-dev")),
        .systemLibrary(name: "CGSISAL", path: "Sources/CLibraries/CGSISAL",
                       pkgConfig: "libisal", providers: apt("libisal-dev")),
        .systemLibrary(name: "CGSNetlink", path: "Sources/CLibraries/CGSNetlink",
                       pkgConfig: "libnl-genl-3.0", providers: apt("libnl-genl-3-dev")),
        .systemLibrary(name: "CGSGpiodSystem", path: "Sources/CLibraries/CGSGpiodSystem",
                       pkgConfig: "libgpiod", providers: apt("libgpiod-dev")),
        .systemLibrary(name: "CGSSRTSystem", path: "Sources/CLibraries/CGSSRTSystem",
                       pkgConfig: "srt", providers: apt("libsrt-openssl-dev")),
        // No pkgConfig: libcurl.pc's private requirements (mit-krb5) add -isystem flags SwiftPM
        // refuses with a warning; the headers sit in the default multiarch include directory.
        .systemLibrary(name: "CGSCurlSystem", path: "Sources/CLibraries/CGSCurlSystem",
                       providers: apt("libcurl4-openssl-dev")),
        // Typed wrappers of libcurl's variadic setopt/getinfo, the multi result, macro constants.
        .target(name: "CGSCurl", dependencies: ["CGSCurlSystem"], path: "Sources/CLibraries/CGSCurl"),
        // libsrt's listen callback (one peer at a time) and log handler (a listener's refusals).
        .target(name: "CGSSRT", dependencies: ["CGSSRTSystem"], path: "Sources/CLibraries/CGSSRT"),
        // One C interface over libgpiod v1 (bookworm 1.6) and v2 (trixie 2.x), chosen at compile time.
        .target(name: "CGSGpiod", dependencies: ["CGSGpiodSystem"], path: "Sources/CLibraries/CGSGpiod"),
        // Thread names (pthread_setname_np is a GNU extension Glibc's module does not show).
        .target(name: "CGSRuntime", path: "Sources/CLibraries/CGSRuntime"),
        // epoll, eventfd, sendfile, accept4, memfd_create for the HTTP engine (not in Glibc's module).
        .target(name: "CGSEventLoop", path: "Sources/CLibraries/CGSEventLoop"),

        // Version and commit of the build, written by `make` (tools/build-stamp.sh).
        .target(name: "CGSBuildStamp", path: "Sources/CLibraries/CGSBuildStamp"),

        // MARK: Adapters: one per outside facility, each owning its C handles.
        .target(name: "Capture", dependencies: ["CGSPcap"], path: "Sources/Adapters/Capture"),
        .target(name: "Systemd", dependencies: ["CGSSystemd"], path: "Sources/Adapters/Systemd"),
        // RAUC's installer over D-Bus (sd-bus): A/B root-slot updates (docs/updates.md).
        .target(name: "RAUC", dependencies: ["CGSSystemd"], path: "Sources/Adapters/RAUC"),
        // Implements the core's KeyframeDetector (segmenter) with libavcodec's parser.
        .target(name: "MediaCodec", dependencies: ["CGSAVCodec", "GrandstandCore"], path: "Sources/Adapters/MediaCodec"),
        // Implements the core's ReedSolomonMath (FEC protection windows) with ISA-L.
        .target(name: "ErasureCoding", dependencies: ["CGSISAL", "GrandstandCore", "GrandstandRuntime"], path: "Sources/Adapters/ErasureCoding"),
        .target(name: "WiFi", dependencies: ["CGSNetlink", "GrandstandCore"], path: "Sources/Adapters/WiFi"),
        .target(name: "GPIO", dependencies: ["CGSGpiod"], path: "Sources/Adapters/GPIO"),
        // SRT sockets (libsrt, live mode): caller and listener, passphrase, counters.
        .target(name: "SRT", dependencies: ["CGSSRT", "CGSSRTSystem"], path: "Sources/Adapters/SRT"),
        // Both listeners: our epoll HTTP/1.1 engine, the route table on the core's Router, streams.
        .target(name: "HTTPServer", dependencies: ["CGSEventLoop", "GrandstandCore", "GrandstandRuntime"], path: "Sources/Adapters/HTTPServer"),
        // Outgoing HTTP/1.1 (the management CLI's requests, report POSTs): Glibc sockets only.
        .target(name: "HTTPClient", dependencies: ["GrandstandCore", "CurlHTTP"], path: "Sources/Adapters/HTTPClient"),
        // Outgoing HTTP(S) on libcurl: origin fetches (TLS, pins, proxy, redirects, HTTP/2, resume, timeouts).
        .target(name: "CurlHTTP", dependencies: ["CGSCurl", "CGSCurlSystem", "GrandstandRuntime"], path: "Sources/Adapters/CurlHTTP"),
        // UDP multicast sending (and a joined receiver for tests): Glibc sockets only.
        .target(name: "Multicast", dependencies: ["GrandstandCore"], path: "Sources/Adapters/Multicast"),
        // The content cache's durable store (objects + index journal, crash recovery): Glibc only.
        .target(name: "ContentStore", dependencies: ["GrandstandCore"], path: "Sources/Adapters/ContentStore"),

        // MARK: Services: the product's libraries on the service runtime, by concern (docs/architecture.md).
        // Events and journald, state files and the runtime config, health and LEDs, logs, reports.
        .target(name: "GrandstandOperations", dependencies: ["GrandstandCore", "GrandstandRuntime", "Systemd", "RAUC", "GPIO", "WiFi",
                                                            "HTTPServer", "HTTPClient", "CurlHTTP"], path: "Sources/GrandstandOperations"),
        // Live capture into channel events, FLUTE file channels, replay of a capture file.
        .target(name: "GrandstandIngest", dependencies: ["GrandstandCore", "GrandstandRuntime", "GrandstandOperations", "Capture",
                                                        "ErasureCoding", "MediaCodec", "SRT"], path: "Sources/GrandstandIngest"),
        // The gateway: video channels (HLS, rewind, health, thumbnails), data rings, the fan routes.
        .target(name: "GrandstandServing", dependencies: ["GrandstandCore", "GrandstandRuntime", "GrandstandOperations", "GrandstandIngest",
                                                         "HTTPServer", "MediaCodec"], path: "Sources/GrandstandServing"),
        // The operator features: content cache and prefetch, catalog, recordings, timelines.
        .target(name: "GrandstandServices", dependencies: ["GrandstandCore", "GrandstandRuntime", "GrandstandOperations", "GrandstandIngest",
                                                          "GrandstandServing", "HTTPServer", "HTTPClient", "CurlHTTP", "ContentStore"],
                path: "Sources/GrandstandServices"),
        // `grandstand send`: the venue streamer (SAP, RTP/TS, data, FEC, FLUTE carousels, faults).
        .target(name: "GrandstandStreamer", dependencies: ["GrandstandCore", "GrandstandOperations", "ErasureCoding", "Multicast"],
                path: "Sources/GrandstandStreamer"),
        // The running gateway: every service started and stopped as a unit, the management routes.
        .target(name: "GrandstandDaemon", dependencies: ["GrandstandCore", "GrandstandRuntime", "GrandstandOperations", "GrandstandIngest",
                                                        "GrandstandServing", "GrandstandServices", "HTTPServer", "MediaCodec", "Systemd", "RAUC", "WiFi",
                                                        "Capture", "ErasureCoding", "GPIO", "SRT", "CurlHTTP", "CGSBuildStamp"],
                path: "Sources/GrandstandDaemon"),

        // MARK: The one executable: commands and wiring only.
        .executableTarget(
            name: "grandstand",
            dependencies: [
                "GrandstandCore", "GrandstandRuntime", "GrandstandOperations", "GrandstandIngest", "GrandstandServing",
                "GrandstandServices", "GrandstandStreamer", "GrandstandDaemon",
                "Capture", "Systemd", "MediaCodec", "ErasureCoding", "GPIO", "HTTPClient", "Multicast", "CGSBuildStamp",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/grandstand"),

        // MARK: Benchmarks (tools/bench): `swift run -c release fec-bench`.
        .executableTarget(name: "fec-bench", dependencies: ["GrandstandCore", "ErasureCoding", "CGSISAL"], path: "tools/bench/fec"),
        // The ingest packet path alone (pcap read → IngestPipeline) for tools/bench/ingest.sh.
        .executableTarget(name: "ingest-bench", dependencies: ["GrandstandCore", "Capture", "ErasureCoding"], path: "tools/bench/ingest"),
        // Instruction counts of the hot paths under callgrind (tools/bench/instructions/check.sh, `make perf-check`).
        .executableTarget(name: "perf-guard", dependencies: ["GrandstandCore", "ErasureCoding"], path: "tools/bench/instructions",
                          exclude: ["baseline.tsv", "check.sh"]),

        // The cache's crash-safety proof writer (tools/cache-killtest, run by ContentCacheTests).
        .executableTarget(name: "cache-killtest", dependencies: ["GrandstandCore", "ContentStore"], path: "tools/cache-killtest",
                         exclude: ["README.md"]),

        // MARK: Tests: one target per module; fixtures live beside them under Tests/Fixtures.
        .target(name: "TestSupport", path: "Tests/Support"),
        .testTarget(name: "GrandstandCoreTests", dependencies: ["GrandstandCore", "Capture", "TestSupport"]),
        .testTarget(name: "GrandstandRuntimeTests", dependencies: ["GrandstandRuntime", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "GrandstandCore", "TestSupport"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd"]),
        .testTarget(name: "MediaCodecTests", dependencies: ["MediaCodec", "GrandstandCore", "TestSupport"]),
        .testTarget(name: "ErasureCodingTests", dependencies: ["ErasureCoding", "GrandstandCore", "TestSupport"]),
        .testTarget(name: "WiFiTests", dependencies: ["WiFi", "GrandstandCore", "TestSupport"]),
        .testTarget(name: "GPIOTests", dependencies: ["GPIO"]),
        .testTarget(name: "SRTTests", dependencies: ["SRT"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer"]),
        .testTarget(name: "CurlHTTPTests", dependencies: ["CurlHTTP", "GrandstandRuntime", "TestSupport"]),
        .testTarget(name: "MulticastTests", dependencies: ["Multicast", "GrandstandCore", "TestSupport"]),
        .testTarget(name: "ContentCacheTests", dependencies: ["ContentStore", "GrandstandCore", "HTTPClient", "TestSupport"]),
        // The service libraries and the daemon, end to end on real sockets, processes and tools.
        .testTarget(name: "GrandstandTests", dependencies: ["GrandstandCore", "GrandstandRuntime", "GrandstandOperations", "GrandstandIngest",
                                                      "GrandstandServing", "GrandstandServices", "GrandstandStreamer", "GrandstandDaemon",
                                                      "Multicast", "HTTPClient", "CurlHTTP", "HTTPServer", "SRT", "RAUC", "TestSupport"]),
        // The command line: the built `grandstand` binary run as a process (help, version, exit codes).
        .testTarget(name: "GrandstandCommandTests", dependencies: ["TestSupport"]),
    ]
)
