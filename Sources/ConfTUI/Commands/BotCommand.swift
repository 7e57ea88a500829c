import Engine
import Foundation
import RoomModel
import Signaling
import Synchronization

/// `conftui bot`: a headless participant. Joins a SkyRTC room, sends a synthetic camera and a tone to everyone,
/// decodes and measures what everyone sends, and writes a JSON report (refreshed every 2 s, final when it ends).
///
/// Contract with scripts and tests: once joined it prints exactly one line to standard output —
/// `conftui bot: joined ROOM as SOCKETID` — and nothing else there. It ends after `--duration` seconds, on
/// SIGINT/SIGTERM, or (with `--no-reconnect`) when the signaling connection drops, then writes `--report` and exits 0.
/// Without `--no-reconnect` a dropped connection is retried with backoff, as `join` does.
let botCommand = Command(
    name: "bot",
    summary: "join a room headless: send a test card and a tone, measure what arrives, write a JSON report",
    positionalUsage: "<ws-url>",
    options: CallOptionsParsing.specs + [
        .value("name", "NAME", "display name others see; also picks the test card colour (default: bot)"),
        .value("duration", "S", "leave after S seconds (default: run until SIGINT/SIGTERM)"),
        .value("report", "FILE", "write the JSON report here every 2 s and on exit"),
        .value("tone", "HZ", "frequency of the audio tone (default: 440)"),
        .flag("trickle-only", "signal candidates only by trickle, none in the SDP"),
        .flag("muted", "start muted (sends silence)"),
        .flag("no-video", "start with video off (sends no video)"),
        .value("receive-size", "WxH", "the picture size the bot shows others at: with --sfu janus it receives the simulcast layer that fills it (160x120 or less: the low one; default: the full one)"),
        .value("mute-at", "S", "mute S seconds after joining, as the `m` key does (others are told; repeatable)"),
        .value("unmute-at", "S", "unmute S seconds after joining, as the `m` key does (repeatable)"),
        .value("say", "TEXT", "send TEXT as chat to every peer once its channel opens, later ones too (repeatable; with --sfu janus once, to those subscribed then)"),
        .value("say-after", "S", "say the --say texts S seconds after joining rather than at once (default: 0)"),
        .value("say-lines", "FILE", "send each line of FILE as a chat message to the peers whose channels are open, paced by what they take"),
        .flag("echo", "answer every chat \"ping X\" with \"pong X\" to its sender at once (round-trip measurements)"),
        .value("ping", "N", "send N chat pings (\"ping 1\"...) one after the other to peers that echo; round trips in the report"),
        .value("send-file", "PATH", "offer the file to every peer once its channel opens, later ones too (repeatable)"),
        .value("accept-files", "DIR", "accept every file offered into DIR (default: refuse every offer)"),
        .value("max-file-size", "SIZE", "refuse offers larger than SIZE bytes (K, M, G suffixes; default 1G)"),
    ],
    details: """
    The bot runs the same room logic as `conftui join` (mesh, trickle, reconnect with backoff), without a screen.
    Its log goes to --log or standard error; standard output gets one line once joined.
    examples:
      conftui bot ws://127.0.0.1:3000/ --room 100 --duration 20 --report bot.json --host-candidates loopback
    """,
    run: { args in
        let name = args.value("name") ?? "bot"
        var settings = try CallOptionsParsing.settings(args, name: name)
        settings.receiveSize = try CallOptionsParsing.pictureSize(args, option: "receive-size")
        let duration = try args.double("duration", default: 0, range: 0...86400)
        var options = try CallOptionsParsing.callOptions(args, defaultCamera: "card", name: name)
        options.trickleOnly = args.has("trickle-only")
        options.media.toneHz = try args.double("tone", default: 440, range: 50...8000)
        let log = try SharedOptions.log(args, otherwise: .standardError)
        // Log lines carry what the network said (ids, server errors, close reasons) and usually go to a terminal.
        options.log = { log.write("bot \(name): " + SafeText.stripped($0)) }
        var messaging = RoomMessaging.Configuration()
        messaging.repeatToNewChannels = true
        if let directory = args.value("accept-files") {
            messaging.filePolicy = .acceptAll
            messaging.downloadDirectory = directory
        } else {
            messaging.filePolicy = .refuseAll
        }
        messaging.maxFileSize = try SharedOptions.byteSize(args, "max-file-size", default: 1 << 30)
        let session = try RoomSessions.open(settings, callOptions: options, messaging: messaging, echoPings: args.has("echo"),
                                            log: { log.write("bot \(name): " + SafeText.stripped($0)) })
        session.call.media.setMuted(args.has("muted"))
        session.call.media.setVideoEnabled(!args.has("no-video"))
        let lines = try args.value("say-lines").map { path -> [String] in
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw UsageError("--say-lines: cannot read \(path) as UTF-8 text") }
            return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        } ?? []
        var toggles: [(at: Double, muted: Bool)] = []
        for (option, muted) in [("mute-at", true), ("unmute-at", false)] {
            for text in args.values(option) {
                guard let at = Double(text), at >= 0, at <= 86400 else {
                    throw UsageError("--\(option) takes seconds from 0 to 86400, not '\(text)'")
                }
                toggles.append((at, muted))
            }
        }
        let sayAfter = try args.value("say-after").map { text -> Double in
            guard let s = Double(text), s >= 0, s <= 86400 else { throw UsageError("--say-after takes seconds from 0 to 86400, not '\(text)'") }
            return s
        } ?? 0
        let run = BotRun(session: session, name: name, log: log, say: args.values("say"), sayAfter: sayAfter, sendFiles: args.values("send-file"),
                         lines: lines, pings: try args.int("ping", default: 0, range: 0...100_000),
                         muteToggles: toggles.sorted { $0.at < $1.at })
        return try run.run(duration: duration, reportPath: args.value("report"))
    })

/// One bot run: the session, the stop signals, the report.
final class BotRun {
    let session: any RoomSession
    let name: String
    let log: SignalingLog
    let say: [String]
    /// `--say-after`: seconds after joining before `say` is said (a forwarding server relays chat only to those
    /// already subscribed to us).
    let sayAfter: Double
    let sendFiles: [String]
    /// `--say-lines`: the lines not yet said.
    private var lines: ArraySlice<String>
    let startedAt = MediaPipeline.wallClock()
    private var messages = MessagingReport()
    private var names: [RemotePeerID: String] = [:]
    /// What each peer announced about its microphone and camera (`SessionEvent.peerMedia`), for the report.
    private var media: [RemotePeerID: RemoteMediaState] = [:]
    /// `--mute-at` / `--unmute-at`: seconds after joining, in order; each applied once, as the `m` key would.
    private var muteToggles: ArraySlice<(at: Double, muted: Bool)>

    /// Lines are said while every open channel has less than this queued: the channel, not the bot, sets the pace.
    static let lineQueueBytes = 256 * 1024
    /// And at most this many a second: well under what a receiver takes from one peer (5,000, `RoomMessaging`).
    static let linesPerSecond = 2_000
    private var lineWindow: (start: Double, count: Int) = (0, 0)

    init(session: any RoomSession, name: String, log: SignalingLog, say: [String] = [], sayAfter: Double = 0, sendFiles: [String] = [],
         lines: [String] = [], pings: Int = 0, muteToggles: [(at: Double, muted: Bool)] = []) {
        (self.session, self.name, self.log, self.say, self.sendFiles) = (session, name, log, say, sendFiles)
        self.sayAfter = sayAfter
        self.muteToggles = muteToggles[...]
        self.lines = lines[...]
        self.pingsLeft = pings
    }

    /// `--ping N`: one ping in flight at a time, to every open channel; the next goes when every peer answered
    /// (or after `pingTimeout`). Round trips are wall-clock differences of the send and of the pong's arrival on
    /// the call's event thread.
    private var pingsLeft: Int
    private var ping: (number: Int, sentAt: Double, waiting: Int, answered: Set<String>)?
    private var nextPing = 1
    static let pingTimeout = 2.0

    private func sendPing(now: Double) {
        if let p = ping, p.answered.count < p.waiting && now - p.sentAt < Self.pingTimeout { return }
        ping = nil
        guard pingsLeft > 0, session.messaging.openChannelCount > 0 else { return }
        let waiting = session.messaging.openChannelCount
        let sentAt = MediaPipeline.wallClock()
        session.messaging.say("ping \(nextPing)")
        ping = (nextPing, sentAt, waiting, [])
        nextPing += 1
        pingsLeft -= 1
    }

    private func pongArrived(_ text: String, from peer: RemotePeerID, at: Double) {
        guard let p = ping, text == "pong \(p.number)", !p.answered.contains(peer.rawValue) else { return }
        ping!.answered.insert(peer.rawValue)
        messages.addRoundTrip(to: peer.rawValue, milliseconds: (at - p.sentAt) * 1000)
    }

    /// Says the next lines of `--say-lines` once a channel is open, as far as the channels' queues allow.
    private func sayLines() {
        let messaging = session.messaging
        guard !lines.isEmpty, messaging.openChannelCount > 0 else { return }
        let now = MediaPipeline.wallClock()
        if now - lineWindow.start >= 1 { lineWindow = (now, 0) }
        var budget = min(256, Self.linesPerSecond - lineWindow.count)
        while budget > 0, let line = lines.first, messaging.mostBuffered < Self.lineQueueBytes {
            messaging.say(line)
            lines.removeFirst()
            budget -= 1
            lineWindow.count += 1
        }
    }

    /// Session events name the peers; messaging events fill the report.
    private func collect() {
        for event in session.takeEvents() {
            switch event {
            case .joined(_, let peers, let known, let announced):
                names.merge(known) { $1 }
                for peer in peers { media[peer] = announced[peer] }
            case .peerJoined(let peer, let name): if let name { names[peer] = name }
            case .peerLeft(let peer): media[peer] = nil
            case .peerMedia(let peer, let state):
                // What was not said is kept as last known (`RemoteMediaState`), as the screen does.
                var known = media[peer] ?? RemoteMediaState()
                if let muted = state.audioMuted { known.audioMuted = muted }
                if let on = state.videoOn { known.videoOn = on }
                media[peer] = known
            default: break
            }
        }
        session.messaging.tick()
        for event in session.messaging.takeEvents() {
            if case .chat(let from, let text, let at) = event, text.hasPrefix("pong ") { pongArrived(text, from: from, at: at) }
            messages.add(event, names: names)
            if case .notice(let text) = event { log.write("bot \(name): " + SafeText.stripped(text)) }
        }
    }

    func run(duration: Double, reportPath: String?) throws -> Int32 {
        // Block the stop signals in every thread (threads inherit the mask) and wait for them here.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let you = try session.start()
        let line = "conftui bot: joined \(session.roomShown) as \(SafeText.stripped(you.rawValue))\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
        // Repeated to every channel that opens, peers that join later included.
        var unsaid = say[...]
        if sayAfter == 0 {
            for text in unsaid { session.messaging.say(text) }
            unsaid = []
        }
        for path in sendFiles { session.messaging.sendFile(path: path) }

        let joinedAt = MediaPipeline.wallClock()
        let deadline = duration > 0 ? joinedAt + duration : Double.infinity
        var why = "duration over"
        var lastReport = MediaPipeline.wallClock()
        while MediaPipeline.wallClock() < deadline {
            if !unsaid.isEmpty, MediaPipeline.wallClock() - joinedAt >= sayAfter {
                for text in unsaid { session.messaging.say(text) }
                unsaid = []
            }
            sayLines()
            sendPing(now: MediaPipeline.wallClock())
            while let toggle = muteToggles.first, MediaPipeline.wallClock() - joinedAt >= toggle.at {
                muteToggles.removeFirst()
                // The `m` key's path: the call announces it, the session tells the room its own way.
                session.call.media.setMuted(toggle.muted)
                log.write("bot \(name): \(toggle.muted ? "muted" : "unmuted") (at \(toggle.at) s)")
            }
            let busy = !lines.isEmpty || pingsLeft > 0 || ping != nil
            var timeout = timespec(tv_sec: 0, tv_nsec: busy ? 1_000_000 : 200_000_000)
            let received = sigtimedwait(&stopSignals, nil, &timeout)
            if received > 0 { why = "signal \(received)"; break }
            if let reason = session.endReason { why = reason; break }
            if let error = session.call.media.error { why = error; break }
            // The bot has no screen: the call already acted on these, and the report reads the snapshots.
            collect()
            _ = session.call.events.take()
            // Refreshed during the call as `join --report` does, so a test can watch what arrives while it happens.
            if let reportPath, MediaPipeline.wallClock() - lastReport >= 2 {
                lastReport = MediaPipeline.wallClock()
                writeReport(to: reportPath, reason: "running")
            }
        }
        log.write("bot \(name): leaving (\(why))")
        session.leave()
        collect()
        if let reportPath {
            try CallReport(session: session, name: name, startedAt: startedAt, endReason: why, messaging: messages, names: names, media: media).write(to: reportPath)
            log.write("bot \(name): report written to \(reportPath)")
        }
        return 0
    }

    /// Written to a temporary file and renamed, so a reader never sees half a report; a failure is logged, the call
    /// goes on (the report at the end throws as before).
    private func writeReport(to path: String, reason: String) {
        let temporary = path + ".tmp"
        do {
            try CallReport(session: session, name: name, startedAt: startedAt, endReason: reason, messaging: messages, names: names, media: media).write(to: temporary)
            _ = rename(temporary, path)
        } catch {
            log.write("bot \(name): cannot write the report: \(error)")
        }
    }
}
