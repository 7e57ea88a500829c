import Engine
import Signaling

/// The options `bot`, `join` and `demo` share, parsed in one place so the same flag means the same thing everywhere.
enum CallOptionsParsing {
    static let specs: [OptionSpec] = [
        .value("room", "NAME", "room to join (default: the server's default room; with --sfu janus a number)"),
        .value("sfu", "janus", "the URL is a forwarding server's, not a SkyRTC server's: janus joins a Janus VideoRoom (WebSocket API) and publishes once, whatever the room's size"),
        .value("stun", "URL", "STUN server for server-reflexive candidates: stun:HOST[:PORT] (default: none)"),
    ] + turnSpecs + [
        SharedOptions.hostCandidates("127.0.0.1 only (and only loopback peers), or every interface (default: all)"),
        .value("camera", "SRC", "video source: auto, face, card, demo-card, bars, clock, file:PATH.y4m, /dev/videoN (c cycles through them)"),
        .value("size", "WxH", "picture size sent, \(pictureWidths.lowerBound)x\(pictureHeights.lowerBound) to \(pictureWidths.upperBound)x\(pictureHeights.upperBound), even numbers; the camera or file is scaled to it (default: 320x240)"),
        .value("max-video-kbps", "N", "most video bit rate per encoding, 30 to 2500 kbit/s; congestion control sends less when the path carries less (default: 300)"),
        SharedOptions.log("append log lines here"),
        .flag("no-reconnect", "end when the signaling connection drops instead of reconnecting with backoff"),
    ]

    /// `--turn` and its credentials; `demo` takes them too.
    static let turnSpecs: [OptionSpec] = [
        .value("turn", "URL", "TURN server for relayed candidates: turn:HOST[:PORT][?transport=udp|tcp] or, over TLS, "
               + "turns:HOST[:PORT] (default: none)"),
        .value("turn-user", "USER", "TURN username (long-term credentials; required with --turn)"),
        .value("turn-password", "PASS", "TURN password (or the environment variable CONFTUI_TURN_PASSWORD)"),
        .flag("turn-insecure", "turns: accept any certificate (encrypts, but does not prove it is your relay)"),
    ]

    /// The TURN server of `--turn`, with its credentials; nil without `--turn`.
    static func turnServer(_ args: ParsedArguments) throws -> TurnServer? {
        guard let uri = args.value("turn") else {
            if args.value("turn-user") != nil || args.value("turn-password") != nil || args.has("turn-insecure") {
                throw UsageError("--turn-user, --turn-password and --turn-insecure need --turn URL")
            }
            return nil
        }
        guard let user = args.value("turn-user"), !user.isEmpty else { throw UsageError("--turn needs --turn-user USER") }
        // A password on the command line is visible to every user of the machine (ps); the environment is not.
        guard let password = args.value("turn-password") ?? environmentVariables()["CONFTUI_TURN_PASSWORD"] else {
            throw UsageError("--turn needs --turn-password PASS (or CONFTUI_TURN_PASSWORD in the environment)")
        }
        let server = try IceServerURI.turn(uri, credentials: TurnCredentials(username: user, password: password),
                                           verification: args.has("turn-insecure") ? .insecure : .system)
        if args.has("turn-insecure") && server.transport != .tls {
            throw UsageError("--turn-insecure is for turns: (TLS) servers; '\(uri)' is not one")
        }
        return server
    }

    static let pictureWidths = 64...1280
    static let pictureHeights = 48...720

    /// `--size WxH`: the encoded picture's size; nil without the option.
    static func pictureSize(_ args: ParsedArguments, option: String = "size") throws -> (width: Int, height: Int)? {
        guard let text = args.value(option) else { return nil }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              pictureWidths.contains(width), pictureHeights.contains(height) else {
            throw UsageError("--\(option) takes WIDTHxHEIGHT from \(pictureWidths.lowerBound)x\(pictureHeights.lowerBound) to "
                             + "\(pictureWidths.upperBound)x\(pictureHeights.upperBound), e.g. 640x480, not '\(text)'")
        }
        // I420 halves both dimensions for its colour planes: VP8 takes even sizes only.
        guard width % 2 == 0, height % 2 == 0 else { throw UsageError("--\(option) needs even numbers, not '\(text)'") }
        return (width, height)
    }

    /// The test card colour of a participant: the sum of the name's code points (the interop tests compute the same).
    static func participantNumber(_ name: String) -> UInt8 {
        UInt8(truncatingIfNeeded: name.unicodeScalars.reduce(0) { $0 &+ Int($1.value) })
    }

    static func callOptions(_ args: ParsedArguments, defaultCamera: String, name: String) throws -> Call.Options {
        var options = Call.Options()
        options.hostCandidates = try SharedOptions.hostCandidates(args)
        options.stunServer = try args.value("stun").map(IceServerURI.stun)
        options.turnServer = try turnServer(args)
        options.media.camera = args.value("camera") ?? defaultCamera
        if let size = try pictureSize(args) { (options.media.width, options.media.height) = size }
        options.media.videoBitrateKbps = try args.int("max-video-kbps", default: options.media.videoBitrateKbps, range: 30...2500)
        options.media.participant = participantNumber(name)
        options.media.displayName = name.isEmpty ? nil : name
        return options
    }

    static func settings(_ args: ParsedArguments, name: String?) throws -> RoomSessionSettings {
        guard args.positional.count == 1 else { throw UsageError("expected exactly one <ws-url>, e.g. ws://127.0.0.1:3000/") }
        let url = args.positional[0]
        guard url.hasPrefix("ws://") || url.hasPrefix("wss://") else {
            throw UsageError("'\(url)' is not a WebSocket URL (ws://HOST:PORT/ or wss://HOST:PORT/)")
        }
        var settings = RoomSessionSettings(url: url, room: args.value("room") ?? "", name: name, reconnect: !args.has("no-reconnect"))
        switch args.value("sfu") {
        case nil: break
        case "janus":
            // Janus numbers its rooms (1 to 2^53, what JSON numbers hold exactly).
            guard let room = UInt64(settings.room), room >= 1, room <= 1 << 53 else {
                throw UsageError("--sfu janus needs --room N, a room number from 1 to 9007199254740992 (Janus numbers its rooms)")
            }
            settings.sfu = .janus(room: room)
        case let other?: throw UsageError("--sfu takes janus, not '\(other)'")
        }
        return settings
    }
}
