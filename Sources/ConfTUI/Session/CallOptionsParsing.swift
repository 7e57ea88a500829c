import Engine
import Signaling

/// The options `bot`, `join` and `demo` share, parsed in one place so the same flag means the same thing everywhere.
enum CallOptionsParsing {
    static let specs: [OptionSpec] = [
        .value("room", "NAME", "room to join (default: the server's default room)"),
        .value("stun", "URL", "STUN server for server-reflexive candidates: stun:HOST[:PORT] (default: none)"),
        SharedOptions.hostCandidates("127.0.0.1 only (and only loopback peers), or every interface (default: all)"),
        .value("camera", "SRC", "video source: auto, card, demo-card, bars, clock, file:PATH.y4m, /dev/videoN (c cycles through them)"),
        SharedOptions.log("append log lines here"),
        .flag("no-reconnect", "end when the signaling connection drops instead of reconnecting with backoff"),
    ]

    /// The test card colour of a participant: the sum of the name's code points (the interop tests compute the same).
    static func participantNumber(_ name: String) -> UInt8 {
        UInt8(truncatingIfNeeded: name.unicodeScalars.reduce(0) { $0 &+ Int($1.value) })
    }

    static func callOptions(_ args: ParsedArguments, defaultCamera: String, name: String) throws -> Call.Options {
        var options = Call.Options()
        options.hostCandidates = try SharedOptions.hostCandidates(args)
        options.stunServer = try args.value("stun").map(StunServerAddress.resolve)
        options.media.camera = args.value("camera") ?? defaultCamera
        options.media.participant = participantNumber(name)
        options.media.displayName = name.isEmpty ? nil : name
        return options
    }

    static func settings(_ args: ParsedArguments, name: String?) throws -> RoomSession.Settings {
        guard args.positional.count == 1 else { throw UsageError("expected exactly one <ws-url>, e.g. ws://127.0.0.1:3000/") }
        let url = args.positional[0]
        guard url.hasPrefix("ws://") || url.hasPrefix("wss://") else {
            throw UsageError("'\(url)' is not a WebSocket URL (ws://HOST:PORT/ or wss://HOST:PORT/)")
        }
        return RoomSession.Settings(url: url, room: args.value("room") ?? "", name: name, reconnect: !args.has("no-reconnect"))
    }
}
