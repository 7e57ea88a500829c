import Engine
import Signaling

/// `conftui join`: the product. Joins a SkyRTC room (conftui's server or the original one) and shows everyone in the
/// grid: the mesh call runs underneath, each peer's video decoded into its tile, keys acting on the call.
let joinCommand = Command(
    name: "join",
    summary: "join a room: the grid of participants, your camera and microphone sent to everyone",
    positionalUsage: "<ws-url>",
    options: CallOptionsParsing.specs + [
        .value("name", "NAME", "your display name, shown to the others (default: your login name)"),
        ColorChoice.option,
        .value("audio-device", "DEV", "ALSA device for microphone and speaker (default: default; without a sound card: silence and a null sink)"),
        .flag("no-audio", "no microphone and no speaker: send no audio, play nothing"),
        .value("tone", "HZ", "send a sine tone of HZ instead of the microphone (demos and tests)"),
        .value("report", "FILE", "write a JSON report of the call (as `bot --report`) every 2 s and on exit"),
        .value("latency-log", "FILE", "append 'socketId ms' per remote test-card frame painted: capture-to-terminal latency"),
        .flag("muted", "start muted"),
        .flag("no-video", "start with video off"),
        .value("download-dir", "DIR", "where files you accept are saved (default: ./conftui-downloads, made on the first one)"),
        .value("max-file-size", "SIZE", "refuse offered files larger than SIZE (K, M, G suffixes; default 1G)"),
    ],
    details: """
    keys: m mute, v video on/off, c switch camera, s stats, i invite, t chat, Enter type, a/r accept/refuse a file,
          ? help, l leave (y confirms), q quit, Ctrl-L redraw
    chat: Enter opens the input; Enter sends to everyone; `/send PATH` offers a file to everyone. Offered files are
    saved, when you press a, in --download-dir under a safe name that never replaces an existing file.
    The camera defaults to `auto`: the first /dev/video* that opens, else the test card.
    examples:
      conftui join ws://127.0.0.1:3000/ --room standup --name Ada
      conftui join wss://example.org:3000/ --name Ada --camera bars --log /tmp/conftui.log
    """,
    run: { args in
        let name = LoginName.displayName(args.value("name"))
        let settings = try CallOptionsParsing.settings(args, name: name)
        let color = try ColorChoice.parse(args)
        var options = try CallOptionsParsing.callOptions(args, defaultCamera: "auto", name: name ?? "")
        let device = args.value("audio-device") ?? "default"
        if args.has("no-audio") {
            guard args.value("audio-device") == nil, args.value("tone") == nil else {
                throw UsageError("--no-audio cannot go with --audio-device or --tone")
            }
            options.media.audioInput = .none
            options.playback = .none
        } else {
            // Without a capture device the others hear silence (not a tone: a person on SSH is not a test signal).
            options.media.audioInput = .device(name: device, fallbackToneHz: 0)
            if args.value("tone") != nil { options.media.audioInput = .tone(hz: try args.double("tone", default: 440, range: 20...8000)) }
            options.playback = .device(device)
        }
        let log = try SharedOptions.log(args, otherwise: .discard)
        options.log = { log.write("join: " + $0) }
        var messaging = RoomMessaging.Configuration()
        messaging.downloadDirectory = args.value("download-dir") ?? "./conftui-downloads"
        messaging.maxFileSize = try SharedOptions.byteSize(args, "max-file-size", default: 1 << 30)
        let session = try RoomSessions.open(settings, callOptions: options, messaging: messaging, log: { log.write("join: " + $0) })
        session.call.media.setMuted(args.has("muted"))
        session.call.media.setVideoEnabled(!args.has("no-video"))
        // Connect before the screen starts: a wrong URL or an absent server is a plain error message, not a flash
        // of curses.
        try session.start()
        var screen = CallScreen(session: session, serverLabel: hostPart(of: settings.url), color: color)
        screen.reportPath = args.value("report")
        screen.reportName = name ?? ""
        screen.latencyLogPath = args.value("latency-log")
        screen.invite = Invite(webSocketURL: settings.url, room: settings.room, command: Invite.commandName())
        return try screen.run()
    })

/// `ws://host:port/path` → `host:port` for the status bar.
func hostPart(of url: String) -> String {
    var rest = Substring(url)
    if let r = rest.range(of: "://") { rest = rest[r.upperBound...] }
    return String(rest.prefix { $0 != "/" })
}
