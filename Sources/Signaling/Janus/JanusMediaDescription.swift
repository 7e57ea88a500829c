/// conftui's convention for telling a room that a publisher muted its audio or turned its video off.
///
/// Janus 1.1.2 relays nothing about `configure`'s per-mid `send: false`: the media stops, no one is told. The one
/// per-stream field it re-announces to everyone after an SDP-less `configure` is a stream's `description`
/// (janus_videoroom.c: the new text is stored and `janus_videoroom_notify_about_publisher` sends a `publishers`
/// event with `streams[].description` to every other participant). So a mute is a `configure` with both `streams`
/// (the media really stops) and `descriptions` whose text says the state. The texts are fixed and compared exactly:
/// a description is another participant's untrusted text, never parsed beyond equality.
public enum JanusMediaDescription {
    public static let audioOn = "conftui audio on"
    public static let audioMuted = "conftui audio muted"
    public static let videoOn = "conftui video on"
    public static let videoOff = "conftui video off"

    /// Our description of the audio or video mid for what we send.
    static func ours(_ kind: JanusMediaKind, sending: Bool) -> String {
        switch kind {
        case .audio: sending ? audioOn : audioMuted
        case .video: sending ? videoOn : videoOff
        case .data: ""
        }
    }

    /// A stream of `kind` whose description is exactly the "not sending" text of that kind. Anything else (no
    /// description, another application's text, the other kind's text) says nothing.
    static func saysNotSending(_ description: String?, kind: JanusMediaKind) -> Bool {
        switch kind {
        case .audio: description == audioMuted
        case .video: description == videoOff
        case .data: false
        }
    }

    /// The description of one publisher stream, kept only when it is a string of at most `maxBytes` UTF-8 bytes
    /// without control characters; otherwise nil with the reason (ours, not the peer's text) for the log.
    static func checked(_ value: JSONValue?, maxBytes: Int) -> (String?, problem: String?) {
        switch value {
        case nil, .null?:
            return (nil, nil)
        case .string(let text)?:
            let bytes = text.utf8.count
            guard bytes <= maxBytes else { return (nil, "is \(bytes) bytes, over \(maxBytes)") }
            // Control characters have no place in a label; one such text is not ours, whatever else it says.
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                return (nil, "has control characters")
            }
            return (text, nil)
        default:
            return (nil, "is not a string")
        }
    }
}
