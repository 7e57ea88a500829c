import RoomModel

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
        let sources = ["card", "bars", "clock"]
        var sourceIndex = sources.firstIndex(of: args.value("camera") ?? "card") ?? 0
        var simulation = SimulatedRoom(count: count, churn: !args.has("static"))
        let room = Room(roomName: "demo", localName: args.value("name"), sourceName: args.value("camera") ?? sources[sourceIndex])
        var controls = RoomApp.Controls()
        controls.nextSource = {
            sourceIndex = (sourceIndex + 1) % sources.count
            return sources[sourceIndex]
        }
        let app = RoomApp(room: room, server: "simulated", controls: controls, painter: nil,
                          useColor: color != .mono)
        return try app.run { now in simulation.events(until: now) }
    })

/// The `--color` option shared by every screen-drawing command.
enum ColorChoice: String, CaseIterable {
    case auto, truecolor, c256 = "256", c16 = "16", mono

    static func parse(_ text: String?) throws -> ColorChoice {
        guard let text else { return .auto }
        guard let c = ColorChoice(rawValue: text) else {
            throw UsageError("--color takes auto, truecolor, 256, 16 or mono, not '\(text)'")
        }
        return c
    }
}
