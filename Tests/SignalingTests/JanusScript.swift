import Testing
@testable import Signaling

/// A scripted Janus for the client's tests: the frames it answers with are the shapes of janus_videoroom.c's
/// API comment and mainpage.dox. The harness runs the client on a virtual clock and keeps what it sent.
enum Janus {
    static let session: UInt64 = 4_503_599_627_370_001
    static let publisherHandle: UInt64 = 7_001
    static let subscriberHandle: UInt64 = 7_002
    static let room: UInt64 = 1234

    static func success(_ transaction: String, id: UInt64) -> String {
        #"{"janus":"success","transaction":"\#(transaction)","data":{"id":\#(id)}}"#
    }

    static func sessionSuccess(_ transaction: String) -> String {
        #"{"janus":"success","session_id":\#(session),"transaction":"\#(transaction)"}"#
    }

    static func ack(_ transaction: String) -> String {
        #"{"janus":"ack","session_id":\#(session),"transaction":"\#(transaction)"}"#
    }

    /// A plugin answer or event; `data` is the VideoRoom's JSON, `sdp` makes a `jsep`.
    static func event(_ sender: UInt64 = publisherHandle, transaction: String? = nil, data: String,
                      jsep: (type: String, sdp: String)? = nil) -> String {
        var s = #"{"janus":"event","session_id":\#(session),"sender":\#(sender)"#
        if let transaction { s += #","transaction":"\#(transaction)""# }
        s += #","plugindata":{"plugin":"janus.plugin.videoroom","data":\#(data)}"#
        if let jsep { s += #","jsep":{"type":"\#(jsep.type)","sdp":"\#(jsep.sdp)"}"# }
        return s + "}"
    }

    /// A synchronous plugin answer (`create`), inside `success`.
    static func pluginSuccess(_ transaction: String, data: String) -> String {
        #"{"janus":"success","session_id":\#(session),"transaction":"\#(transaction)","sender":\#(publisherHandle),"plugindata":{"plugin":"janus.plugin.videoroom","data":\#(data)}}"#
    }

    static func error(_ transaction: String, code: Int, reason: String) -> String {
        #"{"janus":"error","session_id":\#(session),"transaction":"\#(transaction)","error":{"code":\#(code),"reason":"\#(reason)"}}"#
    }

    /// One entry of `publishers`: audio mid 0 and video mid 1, either may be `disabled`.
    static func publisher(_ id: UInt64, _ display: String, audio: Bool = true, video: Bool = true) -> String {
        func stream(_ type: String, _ mindex: Int, _ on: Bool) -> String {
            on ? #"{"type":"\#(type)","mindex":\#(mindex),"mid":"\#(mindex)","codec":"\#(type == "audio" ? "opus" : "vp8")"}"#
                : #"{"type":"\#(type)","mindex":\#(mindex),"mid":"\#(mindex)","disabled":true}"#
        }
        return #"{"id":\#(id),"display":"\#(display)","streams":[\#(stream("audio", 0, audio)),\#(stream("video", 1, video))],"talking":false}"#
    }

    static func joined(id: UInt64, privateID: UInt64 = 555, publishers: [String] = []) -> String {
        #"{"videoroom":"joined","room":\#(room),"description":"Demo","id":\#(id),"private_id":\#(privateID),"publishers":[\#(publishers.joined(separator: ","))]}"#
    }

    static func publishersEvent(_ publishers: [String]) -> String {
        #"{"videoroom":"event","room":\#(room),"publishers":[\#(publishers.joined(separator: ","))]}"#
    }

    /// `attached`/`updated` streams: for each (feed or nil), an audio and a video section, mids counting from 0.
    static func streams(_ feeds: [UInt64?]) -> String {
        var list: [String] = []
        for (i, feed) in feeds.enumerated() {
            for (j, type) in ["audio", "video"].enumerated() {
                let mindex = 2 * i + j
                if let feed {
                    list.append(#"{"type":"\#(type)","active":true,"mindex":\#(mindex),"mid":"\#(mindex)","ready":false,"send":true,"feed_id":\#(feed),"feed_mid":"\#(j)","feed_display":"p\#(feed)","codec":"\#(type == "audio" ? "opus" : "vp8")"}"#)
                } else {
                    list.append(#"{"type":"\#(type)","active":false,"mindex":\#(mindex),"mid":"\#(mindex)","ready":false,"send":true}"#)
                }
            }
        }
        return "[" + list.joined(separator: ",") + "]"
    }

    static let publisherOffer = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:a0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:v1\r\n"
    /// SDP travels as a JSON string: line ends escaped.
    static func sdp(_ name: String) -> String { "v=0\\r\\ns=\(name)\\r\\n" }
    static func decodedSDP(_ name: String) -> String { "v=0\r\ns=\(name)\r\n" }
}

struct JanusHarness {
    typealias Effect = JanusVideoRoomClient.Effect
    var client: JanusVideoRoomClient
    var now = MonotonicInstant(seconds: 1_000)
    var deadline: MonotonicInstant?
    /// Every frame sent, parsed, with when.
    var sent: [(at: MonotonicInstant, frame: JSONValue)] = []

    init(_ configuration: JanusVideoRoomConfiguration = JanusVideoRoomConfiguration(room: Janus.room, display: "me")) {
        client = JanusVideoRoomClient(configuration: configuration)
    }

    /// The effects other than `.send` (sent frames are kept in `sent`).
    @discardableResult
    mutating func input(_ input: JanusVideoRoomClient.Input) -> [Effect] {
        let output = client.handle(input, now: now)
        deadline = output.deadline
        if let deadline { #expect(deadline > now || deadline == now, "deadline in the past") }
        var rest: [Effect] = []
        for effect in output.effects {
            if case .send(let bytes) = effect {
                let frame = try? JSONParser.parse(bytes)
                #expect(frame != nil, "the client sent a frame that is not JSON")
                sent.append((now, frame ?? .null))
            } else {
                rest.append(effect)
            }
        }
        return rest
    }

    @discardableResult
    mutating func janus(_ text: String) -> [Effect] { input(.message(Array(text.utf8))) }

    /// Moves the clock, firing `.timer` at each deadline on the way; the effects of those timers.
    @discardableResult
    mutating func advance(by seconds: Double, answering: ((inout JanusHarness, JSONValue) -> Void)? = nil) -> [Effect] {
        let end = now + seconds
        var effects: [Effect] = []
        while let d = deadline, d <= end {
            now = max(now, d)
            let before = sent.count
            effects += input(.timer)
            if let answering {
                for (_, frame) in sent[before...] { answering(&self, frame) }
            }
        }
        now = end
        return effects
    }

    var last: JSONValue { sent.last?.frame ?? .null }
    var lastTransaction: String { last["transaction"]?.stringValue ?? "" }
    var lastBody: JSONValue? { last["body"] }
    var lastRequest: String? { last["body"]?["request"]?.stringValue ?? last["janus"]?.stringValue }

    /// Create, attach and join as publisher `feed`, with `others` already publishing.
    mutating func joinRoom(feed: UInt64 = 10, others: [String] = []) -> [Effect] {
        input(.connected)
        janus(Janus.success(lastTransaction, id: Janus.session))
        janus(Janus.success(lastTransaction, id: Janus.publisherHandle))
        let join = lastTransaction
        janus(Janus.ack(join))
        return janus(Janus.event(transaction: join, data: Janus.joined(id: feed, publishers: others)))
    }

    /// Publishes our offer and answers it.
    mutating func publish() -> [Effect] {
        input(.publisherOffer(sdp: Janus.publisherOffer))
        let t = lastTransaction
        janus(Janus.ack(t))
        return janus(Janus.event(transaction: t, data: #"{"videoroom":"event","room":1234,"configured":"ok","audio_codec":"opus","video_codec":"vp8"}"#,
                                 jsep: ("answer", Janus.sdp("pub-answer"))))
    }
}

extension Array where Element == JanusVideoRoomClient.Effect {
    var logs: [String] { compactMap { if case .log(let s) = $0 { s } else { nil } } }
    var withoutLogs: [JanusVideoRoomClient.Effect] { filter { if case .log = $0 { false } else { true } } }
    var failure: String? { lazy.compactMap { if case .failed(let s) = $0 { s } else { nil } }.first }
    var loss: String? { lazy.compactMap { if case .lost(let s) = $0 { s } else { nil } }.first }
}

extension JSONValue {
    /// The feeds of a `streams: [{feed}]` list.
    var feeds: [Int] { if case .array(let items) = self { items.compactMap { $0["feed"]?.integerValue } } else { [] } }
}
