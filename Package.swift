// swift-tools-version:6.0
// conftui: a terminal-native, multi-party WebRTC video conference room.
// Layout is fixed by the design: ConfTUI (executable), RoomModel, Renderer, Engine, Signaling (Engine split into its
// layers below, all under Sources/Engine), plus one system-library target per C library (see docs/architecture.md), and the build-tool plugin
// (EmbedBrowserPage, with its tool BrowserPageEmbedder) that compiles the browser page's files into Signaling.
import PackageDescription

// The libFuzzer binary exists only when `make fuzz-libfuzzer` asks for it (CONFTUI_FUZZER_LIB names libFuzzer's
// archive), so the ordinary build and its products never see it. See Sources/ConfTUIFuzz/README.md.
let fuzzerLibrary = Context.environment["CONFTUI_FUZZER_LIB"]
let fuzzTargets: [Target] = fuzzerLibrary.map { library in
    [.executableTarget(
        name: "ConfTUIFuzz",
        // The lower Engine layers too: the targets `@testable import` each layer whose internals they seed.
        dependencies: ["Signaling", "Engine", "EngineMedia", "EngineRTP", "EngineTransport"],
        exclude: ["README.md"],
        // libFuzzer's archive without its `main` (Entry.swift starts the driver), linked into this binary only:
        // -sanitize=fuzzer for the whole build would give the plugin's tool and the other executables a second main.
        linkerSettings: [.unsafeFlags([library, "-lstdc++"])])]
} ?? []

let release: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "conftui",
    products: [
        .executable(name: "conftui", targets: ["ConfTUI"]),
        .executable(name: "conftui-bench", targets: ["Bench"]),
    ] + (fuzzerLibrary == nil ? [] : [.executable(name: "conftui-fuzz", targets: ["ConfTUIFuzz"])]),
    targets: [
        // C libraries, each behind a minimal shim header (see Sources/C*/shim.h).
        .systemLibrary(name: "CVPX", pkgConfig: "vpx"),
        .systemLibrary(name: "COpus", pkgConfig: "opus"),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl"),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2"),
        // No pkgConfig: SwiftPM drops ncursesw's -D flags, so the shim defines them itself.
        .systemLibrary(name: "CNcurses"),
        // Kernel V4L2 header only (linux-libc-dev); nothing to link.
        .systemLibrary(name: "CV4L2"),
        // Linux epoll for the signaling server's event loop (not exported by Swift's Glibc module).
        .systemLibrary(name: "CEpoll"),

        // The browser page's files (BrowserPage/) are compiled in by the plugin rather than declared as resources:
        // Bundle.module looks for resources next to the build products, and the binary must run when copied anywhere.
        .target(name: "Signaling", dependencies: ["COpenSSL", "CEpoll", "OpenSSLSupport"], exclude: ["BrowserPage", "README.md", "WebSocket/README.md", "Client/README.md", "Janus/README.md"],
                swiftSettings: release, plugins: ["EmbedBrowserPage"]),
        .executableTarget(name: "BrowserPageEmbedder", exclude: ["README.md"]),
        .plugin(name: "EmbedBrowserPage", capability: .buildTool(), dependencies: ["BrowserPageEmbedder"]),
        // What DTLS (Engine) and TLS (Signaling) share: one self-signed-certificate generator, one reader of OpenSSL's
        // error queue; and, being the one target below both, what every layer shares: `MonotonicClock` and
        // `Duration.seconds` (EngineTransport and Signaling re-export them). Under Sources/Engine because Engine and
        // Signaling both depend on it and neither may own it.
        .target(name: "OpenSSLSupport", dependencies: ["COpenSSL"], path: "Sources/Engine/OpenSSLSupport", exclude: ["README.md"],
                swiftSettings: release),
        // Engine is four targets, one per layer, all under Sources/Engine; each depends only on those below it, so
        // the compiler refuses a call that goes the wrong way (issue #14):
        //   EngineTransport  Transport/: STUN, TURN, SDP, ICE, DTLS, SRTP, demux, TransportSession, UDP sockets, EngineError
        //   EngineRTP        RTP/: packets, RTCP, payloads, jitter buffers, recovery, stats, streams   (Transport)
        //   EngineMedia      Audio/, Codec/, Media/: devices, sources, VP8 and Opus              (Transport, RTP)
        //   Engine           Call/: PeerConnection, Call, the media pipeline                     (all of the above)
        // EngineMedia uses Transport for EngineError and the remote VP8 size limits, RTP for EncodedVideoFrame (what
        // VP8Encoder hands VideoSendStream); nothing below imports it. An import that goes up is a circular-dependency
        // error. What one layer uses of another is `package` (or `public` when consumers outside Engine use it too).
        // The call target keeps the module name Engine and re-exports the three below it (Call/EngineLayers.swift),
        // so `import Engine` in ConfTUI, Bench and ConfTUIFuzz still sees the whole public API.
        .target(name: "EngineTransport", dependencies: ["COpenSSL", "CSRTP", "OpenSSLSupport"],
                path: "Sources/Engine/Transport", exclude: ["README.md", "TURN/README.md", "TLS/README.md"], swiftSettings: release),
        .target(name: "EngineRTP", dependencies: ["EngineTransport"],
                path: "Sources/Engine/RTP", exclude: ["README.md"], swiftSettings: release),
        .target(name: "EngineMedia", dependencies: ["EngineTransport", "EngineRTP", "CVPX", "COpus", "CALSA", "CV4L2"],
                path: "Sources/Engine", exclude: ["Transport", "RTP", "Call", "OpenSSLSupport", "README.md"],
                sources: ["Audio", "Codec", "Media"], swiftSettings: release),
        .target(name: "Engine", dependencies: ["EngineTransport", "EngineRTP", "EngineMedia"],
                path: "Sources/Engine/Call", exclude: ["README.md"], swiftSettings: release),
        .target(name: "Renderer", exclude: ["README.md"], swiftSettings: release),
        .target(name: "RoomModel", exclude: ["README.md"], swiftSettings: release),
        .executableTarget(
            name: "ConfTUI",
            dependencies: ["Signaling", "Engine", "Renderer", "RoomModel", "CNcurses"],
            exclude: ["README.md"],
            swiftSettings: release),
        .executableTarget(
            name: "Bench",
            dependencies: ["Signaling", "Engine", "Renderer", "RoomModel", "EngineTestSupport"],
            exclude: ["README.md"],
            swiftSettings: release),

        // What the Swift tests share: the seeded generator, the network emulator, the pair harness, and the call churn
        // driver, which Bench runs too. Engine's public API only (no @testable import), so the release build, which
        // builds every regular target, compiles it too.
        .target(name: "EngineTestSupport", dependencies: ["Engine"], path: "Tests/EngineTestSupport", exclude: ["README.md"]),
        .testTarget(name: "SignalingTests", dependencies: ["Signaling", "EngineTestSupport"]),
        // One test target for the four Engine layers; each test file `@testable import`s the layers it uses.
        .testTarget(name: "EngineTests", dependencies: ["Engine", "EngineMedia", "EngineRTP", "EngineTransport",
                                                        "EngineTestSupport"]),
        .testTarget(name: "RendererTests", dependencies: ["Renderer", "EngineTestSupport"]),
        .testTarget(name: "RoomModelTests", dependencies: ["RoomModel", "EngineTestSupport"]),
        // The executable's pure parts: the session's translations (SkyRTC <-> Call, call and session events -> room events).
        .testTarget(name: "ConfTUITests", dependencies: ["ConfTUI", "Engine", "RoomModel", "Signaling"]),
    ] + fuzzTargets,
    swiftLanguageModes: [.v6]
)
