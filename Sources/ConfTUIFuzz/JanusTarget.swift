@testable import Signaling

/// Target 13: a `JanusVideoRoomClient` driven through a scripted happy path (session, publisher handle, `joined`
/// with two publishers, our offer published and answered, the subscriber handle attached and its offer answered),
/// then the input as newline-separated lines: a line starting with `{` is a text frame from Janus, any other line
/// a command of its first byte (`m` mute/unmute toggles, `v` video, `o` a new offer, `a` a subscriber answer,
/// `l` leave, `d` the WebSocket closed, `x` discard a lost session: the id of the line's other bytes, so Janus's
/// answers about it can name it), and the clock advances a few seconds after each, firing `.timer` at every
/// deadline passed. JSON escapes raw newlines inside strings, so a 0x0A only ever separates lines. Properties: no
/// trap; every frame sent is JSON; one input yields a bounded number of effects; a fired timer never leaves a
/// deadline at or before now (no busy loop for the driver).
enum JanusTarget {
    static let session: UInt64 = 4_503_599_627_370_001
    static let publisherHandle: UInt64 = 7_001
    static let subscriberHandle: UInt64 = 7_002
    static let offer = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\n"

    /// More effects than any one message can explain: 64 publishers of a few effects and notes each, and change.
    static let maxEffectsPerInput = 1_024

    struct Driver {
        var client = JanusVideoRoomClient(configuration: JanusVideoRoomConfiguration(room: 1234, display: "fuzz"))
        var now = MonotonicInstant(seconds: 1_000)
        var deadline: MonotonicInstant?
        var lastTransaction = ""

        mutating func input(_ input: JanusVideoRoomClient.Input) {
            let output = client.handle(input, now: now)
            precondition(output.effects.count <= JanusTarget.maxEffectsPerInput, "\(output.effects.count) effects for one input")
            for case .send(let bytes) in output.effects {
                guard let frame = try? JSONParser.parse(bytes) else { preconditionFailure("the client sent a frame that is not JSON") }
                if let transaction = frame["transaction"]?.stringValue { lastTransaction = transaction }
            }
            deadline = output.deadline
        }

        mutating func janus(_ text: String) { input(.message(Array(text.utf8))) }

        /// Moves the clock by `seconds`, firing `.timer` at each deadline on the way.
        mutating func advance(by seconds: Double) {
            let end = now + seconds
            var fired = 0
            while let d = deadline, d <= end {
                now = max(now, d)
                input(.timer)
                if let next = deadline { precondition(next > now, "a timer left a deadline at or before now") }
                fired += 1
                // Keepalives every 25 s and request timeouts: a few per second of virtual time at most.
                precondition(fired <= 64, "timers without end")
            }
            now = end
        }
    }

    static func event(_ sender: UInt64, transaction: String?, data: String, jsep: (String, String)? = nil) -> String {
        var s = #"{"janus":"event","session_id":\#(session),"sender":\#(sender)"#
        if let transaction { s += #","transaction":"\#(transaction)""# }
        s += #","plugindata":{"plugin":"janus.plugin.videoroom","data":\#(data)}"#
        if let jsep { s += #","jsep":{"type":"\#(jsep.0)","sdp":"\#(jsep.1)"}"# }
        return s + "}"
    }

    static func publisher(_ id: Int) -> String {
        #"{"id":\#(id),"display":"p\#(id)","audio_codec":"opus","video_codec":"vp8","streams":[{"type":"audio","mindex":0,"mid":"0","codec":"opus"},{"type":"video","mindex":1,"mid":"1","codec":"vp8"}]}"#
    }

    /// In the room as feed 10 with feeds 20 and 21 subscribed, every answer given: the state a real call sits in.
    static func joined() -> Driver {
        var d = Driver()
        d.input(.connected)
        d.janus(#"{"janus":"success","transaction":"\#(d.lastTransaction)","data":{"id":\#(session)}}"#)
        d.janus(#"{"janus":"success","transaction":"\#(d.lastTransaction)","data":{"id":\#(publisherHandle)}}"#)
        let join = d.lastTransaction
        d.janus(#"{"janus":"ack","session_id":\#(session),"transaction":"\#(join)"}"#)
        d.janus(event(publisherHandle, transaction: join,
                      data: #"{"videoroom":"joined","room":1234,"description":"fuzz","id":10,"private_id":555,"publishers":[\#(publisher(20)),\#(publisher(21))]}"#))
        // The joined list asks for a subscriber handle first; our offer goes out meanwhile.
        let attach = d.lastTransaction
        d.input(.publisherOffer(sdp: offer))
        d.janus(event(publisherHandle, transaction: d.lastTransaction,
                      data: #"{"videoroom":"event","room":1234,"configured":"ok","audio_codec":"opus","video_codec":"vp8"}"#,
                      jsep: ("answer", "v=0\\r\\ns=pub\\r\\n")))
        d.janus(#"{"janus":"success","transaction":"\#(attach)","data":{"id":\#(subscriberHandle)}}"#)
        let streams = #"[{"type":"audio","active":true,"mindex":0,"mid":"0","feed_id":20,"feed_mid":"0","feed_display":"p20"},{"type":"video","active":true,"mindex":1,"mid":"1","feed_id":20,"feed_mid":"1","feed_display":"p20"},{"type":"audio","active":true,"mindex":2,"mid":"2","feed_id":21,"feed_mid":"0","feed_display":"p21"},{"type":"video","active":true,"mindex":3,"mid":"3","feed_id":21,"feed_mid":"1","feed_display":"p21"}]"#
        d.janus(event(subscriberHandle, transaction: d.lastTransaction, data: #"{"videoroom":"attached","room":1234,"streams":\#(streams)}"#,
                      jsep: ("offer", "v=0\\r\\ns=sub\\r\\n")))
        d.input(.subscriberAnswer(sdp: "v=0\r\ns=answer\r\n"))
        d.janus(event(subscriberHandle, transaction: d.lastTransaction, data: #"{"videoroom":"event","room":1234,"started":"ok"}"#))
        precondition(d.client.phase == .joined && d.client.feed == 10, "the scripted join did not join")
        return d
    }

    /// Built once: the scripted join costs more than most inputs, and the client is a value (each input a copy).
    nonisolated(unsafe) static var start: Driver?

    static func run(_ bytes: [UInt8]) {
        if start == nil { start = joined() }
        guard var d = start else { return }
        var audio = true, video = true
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(64) {
            switch line.first {
            case UInt8(ascii: "{"): d.input(.message(Array(line)))
            case UInt8(ascii: "m"): audio.toggle(); d.input(.setSending(audio: audio, video: video))
            case UInt8(ascii: "v"): video.toggle(); d.input(.setSending(audio: audio, video: video))
            case UInt8(ascii: "o"): d.input(.publisherOffer(sdp: offer))
            case UInt8(ascii: "a"): d.input(.subscriberAnswer(sdp: "v=0\r\ns=answer\r\n"))
            case UInt8(ascii: "l"): d.input(.leave)
            case UInt8(ascii: "d"): d.input(.disconnected)
            case UInt8(ascii: "x"):
                let id = line.dropFirst().prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                d.input(.discard(session: id))
            default: d.input(.message(Array(line)))
            }
            // 0 to 15 s, from the line's last byte: keepalives (25 s) and request timeouts come within a few lines.
            d.advance(by: Double((line.last ?? 0) & 0x0F))
        }
        d.advance(by: 120)
    }
}
