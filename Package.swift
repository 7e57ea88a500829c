// swift-tools-version:6.0
// conftui: a terminal-native, multi-party WebRTC video conference room.
// Layout is fixed by the design: ConfTUI (executable), RoomModel, Renderer, Engine, Signaling,
// plus one system-library target per C library (see docs in README "Module map"), and the build-tool plugin
// (EmbedBrowserPage, with its tool BrowserPageEmbedder) that compiles the browser page's files into Signaling.
import PackageDescription

// The libFuzzer binary exists only when `make fuzz-libfuzzer` asks for it (CONFTUI_FUZZER_LIB names libFuzzer's
// archive), so the ordinary build and its products never see it. See Sources/ConfTUIFuzz/README.md.
let fuzzerLibrary = Context.environment["CONFTUI_FUZZER_LIB"]
let fuzzTargets: [Target] = fuzzerLibrary.map { library in
    [.executableTarget(
        name: "ConfTUIFuzz",
        dependencies: ["Signaling", "Engine"],
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
        .target(name: "Signaling", dependencies: ["COpenSSL", "CEpoll"], exclude: ["BrowserPage"],
                swiftSettings: release, plugins: ["EmbedBrowserPage"]),
        .executableTarget(name: "BrowserPageEmbedder"),
        .plugin(name: "EmbedBrowserPage", capability: .buildTool(), dependencies: ["BrowserPageEmbedder"]),
        .target(name: "Engine", dependencies: ["COpenSSL", "CSRTP", "CVPX", "COpus", "CALSA", "CV4L2"],
                exclude: ["RTP/README.md", "Call/README.md"], swiftSettings: release),
        .target(name: "Renderer", swiftSettings: release),
        .target(name: "RoomModel", swiftSettings: release),
        .executableTarget(
            name: "ConfTUI",
            dependencies: ["Signaling", "Engine", "Renderer", "RoomModel", "CNcurses"],
            swiftSettings: release),
        .executableTarget(
            name: "Bench",
            dependencies: ["Signaling", "Engine", "Renderer", "RoomModel"],
            swiftSettings: release),

        // What the Swift tests share: the seeded generator, the network emulator, the pair harness. Engine's public
        // API only (no @testable import), so the release build, which builds every regular target, compiles it too.
        .target(name: "EngineTestSupport", dependencies: ["Engine"], path: "Tests/EngineTestSupport"),
        .testTarget(name: "SignalingTests", dependencies: ["Signaling", "EngineTestSupport"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "EngineTestSupport"]),
        .testTarget(name: "RendererTests", dependencies: ["Renderer", "EngineTestSupport"]),
        .testTarget(name: "RoomModelTests", dependencies: ["RoomModel", "EngineTestSupport"]),
        // The executable's pure parts: the session's translations (SkyRTC <-> Call, snapshots -> room events).
        .testTarget(name: "ConfTUITests", dependencies: ["ConfTUI", "Engine", "RoomModel", "Signaling"]),
    ] + fuzzTargets,
    swiftLanguageModes: [.v6]
)
