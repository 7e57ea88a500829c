import RoomModel
import Renderer
#if canImport(Glibc)
import Glibc
#endif

/// `conftui demo`: a room to look at without any setup. `--simulate N` runs a scripted room of
/// N fake participants in this process, driving the same Room model and screen as a real call.
let demoCommand = Command(
    name: "demo",
    summary: "show a live room at once: a simulated room of N participants (--simulate N)",
    options: [
        .value("simulate", "N", "N simulated participants (1 to 11), no network"),
        .value("name", "NAME", "your display name (default: none, shown as \"you\")"),
        .value("camera", "SRC", "initial video source name shown in your tile (default: card)"),
        .value("color", "MODE", "auto, truecolor, 256, 16 or mono (default: auto)"),
        .flag("static", "no churn: nobody leaves and rejoins (for tests and screenshots)"),
    ],
    details: """
    keys: m mute, v video on/off, c switch camera, s stats, ? help, l leave (y confirms), q quit, Ctrl-L redraw
    """,
    run: { args in
        guard args.value("simulate") != nil else {
            throw UsageError("demo needs --simulate N for now (the networked demo arrives with `conftui join`)")
        }
        let count = try args.int("simulate", default: 3, range: 1...11)
        let color = try ColorChoice.parse(args.value("color"))
        let start = monotonicSeconds()
        let video = try DemoVideo(localSource: args.value("camera") ?? "card", clock: { wallClockSeconds() })
        var simulation = SimulatedRoom(count: count, churn: !args.has("static"))
        let room = Room(roomName: "demo", localName: args.value("name"), sourceName: video.local.currentName)
        var controls = RoomApp.Controls()
        controls.nextSource = { video.local.next() }
        let painter = TerminalVideoPainter(colorMode: color.renderMode(environment: environmentVariables()),
                                           clock: { monotonicSeconds() - start }) { p in
            guard p.videoOn else { return nil }
            return video.frame(for: p.id, isLocal: p.isLocal, index: p.joinIndex)
        }
        let app = RoomApp(room: room, server: "simulated", controls: controls, painter: painter,
                          useColor: color != .mono)
        return try app.run { now in simulation.events(until: now) }
    })

/// The `--color` option shared by every screen-drawing command.
enum ColorChoice: String, CaseIterable {
    case auto, truecolor, c256 = "256", c16 = "16", mono

    /// The renderer's colour mode: the override, or detected from COLORTERM and TERM.
    func renderMode(environment: [String: String]) -> ColorMode {
        switch self {
        case .auto: return ColorMode.detect(environment: environment, terminfoColors: nil)
        case .truecolor: return .truecolor
        case .c256: return .palette256
        case .c16: return .palette16
        case .mono: return .monochrome
        }
    }

    static func parse(_ text: String?) throws -> ColorChoice {
        guard let text else { return .auto }
        guard let c = ColorChoice(rawValue: text) else {
            throw UsageError("--color takes auto, truecolor, 256, 16 or mono, not '\(text)'")
        }
        return c
    }
}

func wallClockSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func environmentVariables() -> [String: String] {
    var env: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let text = String(cString: entry)
        if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
        p += 1
    }
    return env
}
