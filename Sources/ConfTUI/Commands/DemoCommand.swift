import Engine
import RoomModel
import Renderer
import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// `conftui demo`: a room to look at without any setup (the main job of `make run`).
///
/// `--peers N` (the default, N = 3): starts the signaling server in this process on a free loopback port, joins N
/// synthetic participants to it as real WebRTC peers (drawn faces and synthetic voices taking turns to talk,
/// `DemoTalk`), then joins you with the
/// room screen, and prints the URL a browser on this machine can open to join the same room.
/// `--simulate N`: no network at all, a scripted room of N fake participants driving the same screen.
let demoCommand = Command(
    name: "demo",
    summary: "a live room at once: a local server, N synthetic peers over real WebRTC, and you (or --simulate N)",
    options: [
        .value("peers", "N", "N synthetic participants over real WebRTC (1 to 11, default 3)"),
        .value("simulate", "N", "instead: N simulated participants (1 to 11), no network"),
        .value("room", "NAME", "room name (default: demo)"),
        .value("host", "ADDR", "IPv4 address the demo's server listens on (default 127.0.0.1; 0.0.0.0: every interface, so others can join)"),
        SharedOptions.port("signaling server port (default 0: a free one)"),
        .value("name", "NAME", "your display name (default: your login name)"),
        .value("camera", "SRC", "your video source: auto, face, card, demo-card, bars, clock, file:PATH.y4m, /dev/videoN (default: face)"),
        .value("peer-camera", "SRC", "the synthetic participants' video: face, card, demo-card, bars or clock (default: face; tests use card)"),
        ColorChoice.option,
        SharedOptions.hostCandidates("addresses the peers use: 127.0.0.1 only, or every interface (default: all, so a browser can join)"),
        SharedOptions.log("append log lines here (server and every participant)"),
        SharedOptions.allowOrigin("also let pages from this web origin join (repeatable; the demo's own page always can)"),
        .flag("static", "--simulate only: no churn (nobody leaves and rejoins)"),
    ] + CallOptionsParsing.turnSpecs,
    details: """
    keys: m mute, v video on/off, c switch camera, s stats, i invite, t chat, Enter type, ? help, l leave (y confirms), q quit, Ctrl-L redraw
    Before the screen starts (and again when it ends) the demo prints how others join: the browser URL
    (http://127.0.0.1:PORT/#ROOM) and the `conftui join` command line; `i` shows them on the screen. The server listens
    on 127.0.0.1 (this machine only) unless --host says otherwise: --host 0.0.0.0 lists every address of this machine.
    """,
    run: { args in
        if args.value("simulate") != nil {
            guard args.value("peers") == nil else { throw UsageError("use either --peers N or --simulate N") }
            return try runSimulatedDemo(args)
        }
        return try runNetworkedDemo(args)
    })

private func runSimulatedDemo(_ args: ParsedArguments) throws -> Int32 {
    let count = try args.int("simulate", default: 3, range: 1...11)
    let color = try ColorChoice.parse(args)
    let start = MonotonicClock.now()
    let localName = LoginName.displayName(args.value("name"))
    // The conversation counts from now; the room's `now` (seconds since start) is the same clock's time since then.
    let talk = DemoTalk(seats: count, epoch: wallClockSeconds())
    let video = try DemoVideo(localSource: args.value("camera") ?? "face", localName: localName, talk: talk,
                              peerCamera: try peerCamera(args), clock: { wallClockSeconds() })
    var simulation = SimulatedRoom(count: count, churn: !args.has("static"), talk: talk, localName: localName ?? "you")
    let room = Room(roomName: "demo", localName: localName, sourceName: video.local.currentName)
    // No engine here: the simulated media does at once what a key asks and reports it back like the real call does.
    let reports = LocalMediaReports()
    var controls = RoomApp.Controls()
    controls.setMuted = { reports.pending.append(.local(.setMuted($0))) }
    controls.setVideo = { reports.pending.append(.local(.setVideoOn($0))) }
    controls.nextSource = {
        let name = video.local.next()
        reports.pending.append(.local(.setSource(name)))
        return name
    }
    // Your messages show at once, as a call would report them sent; the simulated room may answer.
    controls.sendChat = { reports.pending.append(.local(.sentChat(text: $0, at: wallClockSeconds()))) }
    let painter = TerminalVideoPainter(colorMode: color.renderMode(environment: environmentVariables()),
                                       clock: { MonotonicClock.now() - start }) { tile in
        // The simulated participants share no screens: only main tiles have pictures.
        let p = tile.participant
        guard tile.isMain, p.videoOn else { return nil }
        return video.frame(for: p.id, isLocal: p.isLocal, name: p.name)
    }
    let app = RoomApp(room: room, server: "simulated", invite: nil, controls: controls, painter: painter,
                      useColor: color.allowsColor)
    return try app.run { now in
        defer { reports.pending = [] }
        for case .local(.sentChat) in reports.pending { simulation.youSaid(at: now) }
        return reports.pending + simulation.events(until: now)
    }
}

/// The simulated demo's local media changes, waiting for the screen's next update (one thread: the screen's).
private final class LocalMediaReports {
    var pending: [RoomEvent] = []
}

private func runNetworkedDemo(_ args: ParsedArguments) throws -> Int32 {
    let count = try args.int("peers", default: 3, range: 1...11)
    let color = try ColorChoice.parse(args)
    let roomName = args.value("room") ?? "demo"
    let hosts = try SharedOptions.hostCandidates(args)
    let log = try SharedOptions.log(args, otherwise: .discard)
    var config = SignalingServerConfiguration()
    let listenHost = args.value("host") ?? "127.0.0.1"
    config.host = listenHost
    config.port = try SharedOptions.port(args, default: 0)
    // The demo's own page (http://127.0.0.1:PORT/ or http://localhost:PORT/) is its server's origin and
    // always accepted; any other web page the user has open is refused (it could otherwise join and
    // message the room on this machine) unless named here.
    config.allowedOrigins = args.values("allow-origin")
    let server = try SignalingServer(config, log: log)
    server.start()
    defer { server.stop() }
    // Everyone in this process connects over loopback, whatever the server listens on.
    let localURL = "ws://127.0.0.1:\(server.port)/"
    let pageURL = "http://127.0.0.1:\(server.port)/#" + roomName
    log.write("demo: server at \(server.pageURL)")
    let invite = Invite(webSocketURL: localURL, room: roomName,
                        reachableHosts: listenHost == "127.0.0.1" ? [] : Invite.reachableHosts(listeningOn: listenHost),
                        command: Invite.commandName())
    // The conversation counts from now: every participant's voice and face, and Grace's mutes, share this epoch.
    let talk = DemoTalk(seats: count, epoch: wallClockSeconds())
    let others = try SyntheticParticipants(count: count, talk: talk, url: localURL, room: roomName,
                                           hostCandidates: hosts, camera: try peerCamera(args), log: { log.write("demo " + $0) })
    defer { others.leave() }
    others.startScriptedMutes()

    let name = LoginName.displayName(args.value("name"))
    var options = Call.Options()
    options.hostCandidates = hosts
    options.turnServer = try CallOptionsParsing.turnServer(args)
    // You: a still face with your name that blinks (no script: its mouth stays closed), unless --camera says otherwise.
    options.media.camera = args.value("camera") ?? "face"
    options.media.participant = CallOptionsParsing.participantNumber(name ?? "you")
    options.media.displayName = name
    // You: the default ALSA microphone and speaker when there are any (you hear the participants' tones), else
    // silence and a null sink that still drives the meters.
    options.media.audioInput = .device(name: "default", fallbackToneHz: 0)
    options.playback = .device("default")
    options.log = { log.write("demo you: " + $0) }
    let session = try RoomSessions.open(.init(url: localURL, room: roomName, name: name), callOptions: options,
                                       log: { log.write("demo you: " + $0) })
    try session.start()
    let line = "conftui demo: room '\(roomName)' with \(count) synthetic participant(s). Others join with:\n  "
        + invite.lines.dropFirst(2).filter { !$0.isEmpty }.joined(separator: "\n  ") + "\n"
    _ = line.withCString { write(1, $0, strlen($0)) }
    var screen = CallScreen(session: session, serverLabel: pageURL, color: color)
    screen.invite = invite
    let status = try screen.run()
    _ = line.withCString { write(1, $0, strlen($0)) }
    return status
}

/// `--peer-camera`: one of the synthetic sources (a device or a file would be shared by every participant).
private func peerCamera(_ args: ParsedArguments) throws -> String {
    let name = args.value("peer-camera") ?? "face"
    guard ["face", "card", "demo-card", "bars", "clock"].contains(name) else {
        throw UsageError("--peer-camera takes face, card, demo-card, bars or clock, not '\(name)'")
    }
    return name
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
