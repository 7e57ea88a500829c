import Engine
import Foundation
import Signaling
import Synchronization

/// `conftui bot`: a headless participant. Joins a SkyRTC room, sends a synthetic camera and a tone to everyone,
/// decodes and measures what everyone sends, and writes a JSON report when it ends.
///
/// Contract with scripts and tests: once joined it prints exactly one line to standard output —
/// `conftui bot: joined ROOM as SOCKETID` — and nothing else there. It ends after `--duration` seconds, on
/// SIGINT/SIGTERM, or when the server closes the connection, then writes `--report` and exits 0.
let botCommand = Command(
    name: "bot",
    summary: "join a room headless: send a test card and a tone, measure what arrives, write a JSON report",
    positionalUsage: "<ws-url>",
    options: [
        .value("room", "NAME", "room to join (default: the server's default room)"),
        .value("name", "NAME", "name in the report and log; also picks the test card colour (default: bot)"),
        .value("duration", "S", "leave after S seconds (default: run until SIGINT/SIGTERM)"),
        .value("report", "FILE", "write the JSON report here on exit"),
        .value("stun", "URL", "STUN server for server-reflexive candidates: stun:HOST[:PORT] (default: none)"),
        .value("host-candidates", "loopback|all", "127.0.0.1 only (and only loopback peers), or every interface (default: all)"),
        .value("camera", "SRC", "video source: card, bars, clock, file:PATH.y4m, /dev/videoN, auto (default: card)"),
        .value("tone", "HZ", "frequency of the audio tone (default: 440)"),
        .value("log", "PATH", "append log lines here (default: standard error)"),
        .flag("trickle-only", "signal candidates only by trickle, none in the SDP"),
        .flag("muted", "start muted (sends silence)"),
        .flag("no-video", "start with video off (sends no video)"),
    ],
    details: """
    examples:
      conftui bot ws://127.0.0.1:3000/ --room 100 --duration 20 --report bot.json --host-candidates loopback
    """,
    run: { args in
        guard args.positional.count == 1 else { throw UsageError("bot takes exactly one <ws-url>") }
        let url = args.positional[0]
        let room = args.value("room") ?? ""
        let name = args.value("name") ?? "bot"
        let duration = try args.double("duration", default: 0, range: 0...86400)
        var options = Call.Options()
        switch args.value("host-candidates") ?? "all" {
        case "loopback": options.hostCandidates = .loopback
        case "all": options.hostCandidates = .all
        case let other: throw UsageError("--host-candidates takes loopback or all, not '\(other)'")
        }
        options.stunServer = try args.value("stun").map(StunServerAddress.resolve)
        options.trickleOnly = args.has("trickle-only")
        options.media.camera = args.value("camera") ?? "card"
        options.media.toneHz = try args.double("tone", default: 440, range: 50...8000)
        options.media.participant = UInt8(truncatingIfNeeded: name.unicodeScalars.reduce(0) { $0 &+ Int($1.value) })
        let log: SignalingLog = try args.value("log").map { try SignalingLog(path: $0) } ?? .standardError
        options.log = { log.write("bot \(name): " + $0) }
        let session = try BotSession(url: url, room: room, name: name, options: options, log: log)
        session.call.media.setMuted(args.has("muted"))
        session.call.media.setVideoEnabled(!args.has("no-video"))
        return try session.run(duration: duration, reportPath: args.value("report"))
    })

/// The wiring of one bot run: SkyRTC client ↔ Call, the stop signals, the report.
struct BotSession {
    let client: SkyRTCClient
    let call: Call
    let room: String
    let name: String
    let log: SignalingLog
    let startedAt = MediaPipeline.wallClock()

    init(url: String, room: String, name: String, options: Call.Options, log: SignalingLog) throws {
        let client = try SkyRTCClient(url: url)
        self.client = client
        self.room = room
        self.name = name
        self.log = log
        call = try Call(options: options, onSignal: { signal in
            do {
                try client.send(BotSession.message(for: signal))
            } catch {
                log.write("bot \(name): signaling send failed: \(error)")
            }
        })
    }

    /// SkyRTC's client → server messages (skyrtc-protocol.md §3): `label` as an integer, `id` as a string.
    static func message(for signal: CallSignalOut) -> SkyRTCClientMessage {
        func description(_ type: String, _ sdp: String) -> JSONValue { .object([("type", .string(type)), ("sdp", .string(sdp))]) }
        switch signal {
        case .offer(let to, let sdp): return .offer(SkyRTCDescription(sdp: description("offer", sdp), socketId: SocketID(to.rawValue)))
        case .answer(let to, let sdp): return .answer(SkyRTCDescription(sdp: description("answer", sdp), socketId: SocketID(to.rawValue)))
        case .candidate(let to, let candidate, let mid, let index):
            return .iceCandidate(SkyRTCCandidate(id: mid, label: index, candidate: candidate, socketId: SocketID(to.rawValue)))
        }
    }

    /// Server → client messages the call understands; nil for the rest.
    static func signal(for message: SkyRTCServerMessage) -> CallSignalIn? {
        func peer(_ s: SocketID) -> RemotePeerID { RemotePeerID(s.rawValue) }
        func sdpText(_ d: SkyRTCDescription) -> String? { d.sdp["sdp"]?.stringValue ?? d.sdp.stringValue }
        switch message {
        case .peers(let p): return .joined(you: peer(p.you), others: p.connections.map(peer))
        case .newPeer(let s, _): return .newPeer(peer(s))
        case .removePeer(let s): return .removePeer(peer(s))
        case .offer(let d): return sdpText(d).map { .offer(from: peer(d.socketId), sdp: $0) }
        case .answer(let d): return sdpText(d).map { .answer(from: peer(d.socketId), sdp: $0) }
        case .iceCandidate(let c): return .candidate(from: peer(c.socketId), candidate: c.candidate, mid: c.id, mLineIndex: c.label)
        case .error, .other: return nil
        }
    }

    func run(duration: Double, reportPath: String?) throws -> Int32 {
        // Block the stop signals in every thread (threads inherit the mask) and wait for them here.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        call.start()
        let (peers, earlier) = try client.join(room: room)
        call.handle(.joined(you: RemotePeerID(peers.you.rawValue), others: peers.connections.map { RemotePeerID($0.rawValue) }))
        for message in earlier { if let s = BotSession.signal(for: message) { call.handle(s) } }
        let shownRoom = room.isEmpty ? "__default" : room
        log.write("bot \(name): joined \(shownRoom) as \(peers.you.rawValue) with \(peers.connections.count) peer(s) there")
        let line = "conftui bot: joined \(shownRoom) as \(peers.you.rawValue)\n"
        _ = line.withCString { write(1, $0, strlen($0)) }

        let signalingEnded = Atomic<Bool>(false)
        let reader = Thread { [client, call, log, name] in
            while true {
                do {
                    let message = try client.next(timeout: 0.5)
                    if let s = BotSession.signal(for: message) { call.handle(s) }
                } catch SignalingError.timeout {
                    continue
                } catch {
                    log.write("bot \(name): signaling ended: \(error)")
                    break
                }
            }
            signalingEnded.store(true, ordering: .releasing)
        }
        reader.name = "bot-signaling"
        reader.start()

        let deadline = duration > 0 ? MediaPipeline.wallClock() + duration : Double.infinity
        var why = "duration over"
        while MediaPipeline.wallClock() < deadline {
            var timeout = timespec(tv_sec: 0, tv_nsec: 200_000_000)
            let received = sigtimedwait(&stopSignals, nil, &timeout)
            if received > 0 { why = "signal \(received)"; break }
            if signalingEnded.load(ordering: .acquiring) { why = "signaling closed"; break }
            if let error = call.media.error { why = error; break }
        }
        log.write("bot \(name): leaving (\(why))")
        call.stop()
        client.close()
        let snapshot = call.snapshot()
        if let reportPath { try writeReport(snapshot, reason: why, to: reportPath) }
        return 0
    }

    struct Report: Encodable {
        var name: String
        var room: String
        var you: RemotePeerID?
        var startedAt: Double
        var endReason: String
        var elapsed: Double
        var local: LocalMediaSnapshot
        var peers: [RemotePeerID: PeerSnapshot]
    }

    func writeReport(_ s: CallSnapshot, reason: String, to path: String) throws {
        let report = Report(name: name, room: room.isEmpty ? "__default" : room, you: s.you, startedAt: startedAt, endReason: reason,
                            elapsed: s.elapsed, local: s.local, peers: s.peers)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        log.write("bot \(name): report written to \(path)")
    }
}

/// `--stun stun:HOST[:PORT]` (RFC 7064 URI; the port defaults to 3478) resolved to an IPv4 transport address.
enum StunServerAddress {
    static func resolve(_ text: String) throws -> TransportAddress {
        var rest = Substring(text)
        if rest.hasPrefix("stun:") { rest = rest.dropFirst(5) }
        var host = String(rest), port: UInt16 = 3478
        if let colon = rest.lastIndex(of: ":") {
            guard let p = UInt16(rest[rest.index(after: colon)...]) else { throw UsageError("--stun: bad port in '\(text)'") }
            host = String(rest[..<colon])
            port = p
        }
        if let ip = IPAddress(host) { return TransportAddress(ip: ip, port: port) }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result, let sa = first.pointee.ai_addr else {
            throw UsageError("--stun: cannot resolve '\(host)'")
        }
        defer { freeaddrinfo(result) }
        let v4 = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
        return TransportAddress(ip: .v4(v4), port: port)
    }
}
