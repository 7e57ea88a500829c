#if canImport(Glibc)
import Glibc
#endif
import EngineTestSupport
import Testing
@testable import Signaling

/// Whatever arrives on the socket, the client drops what is bad with a log line and goes on: a trap would be a
/// remote crash.
@Suite struct JanusHostileInputTests {
    static let s = Janus.session, p = Janus.publisherHandle

    /// Each is dropped (or ignored) with one log line and nothing else.
    static let hostile: [(String, [UInt8])] = {
        var list: [(String, String)] = [
            ("not JSON", "hello"),
            ("empty", ""),
            ("a top-level array", "[1,2,3]"),
            ("a top-level number", "42"),
            ("janus not a string", #"{"janus":5}"#),
            ("deep nesting", String(repeating: "[", count: 100_000)),
            ("deep nesting in data", Janus.event(data: #"{"videoroom":"event","x":"# + String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40) + "}")),
            ("a huge publisher id", Janus.event(data: Janus.publishersEvent([#"{"id":9007199254740993,"display":"x","streams":[]}"#]))),
            ("an id past Int64", Janus.event(data: Janus.publishersEvent([#"{"id":99999999999999999999999,"display":"x"}"#]))),
            ("an id 1e300", Janus.event(data: Janus.publishersEvent([#"{"id":1e300}"#]))),
            ("a fractional id", Janus.event(data: Janus.publishersEvent([#"{"id":20.5}"#]))),
            ("a negative id", Janus.event(data: Janus.publishersEvent([#"{"id":-20,"display":"neg"}"#]))),
            ("a zero id", Janus.event(data: Janus.publishersEvent([#"{"id":0}"#]))),
            ("a string id", Janus.event(data: Janus.publishersEvent([#"{"id":"20","display":"s"}"#]))),
            ("a string session id", #"{"janus":"event","session_id":"\#(s)","sender":\#(p),"plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"talking","id":20}}}"#),
            ("another session", #"{"janus":"event","session_id":77,"sender":\#(p),"plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"talking","id":20}}}"#),
            ("a huge sender", #"{"janus":"event","session_id":\#(s),"sender":18446744073709551615,"plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"talking","id":20}}}"#),
            ("an event without sender", #"{"janus":"event","session_id":\#(s),"plugindata":{"plugin":"janus.plugin.videoroom","data":{"videoroom":"talking","id":20}}}"#),
            ("another plugin", #"{"janus":"event","session_id":\#(s),"sender":\#(p),"plugindata":{"plugin":"janus.plugin.echotest","data":{"echotest":"event"}}}"#),
            ("1,000 publishers", Janus.event(data: Janus.publishersEvent((0..<1000).map { Janus.publisher(UInt64(100 + $0), "p\($0)") }))),
            ("a 10 MB display name", Janus.event(data: Janus.publishersEvent([Janus.publisher(20, String(repeating: "x", count: 10_000_000))]))),
            ("a 300-byte display name", Janus.event(data: Janus.publishersEvent([Janus.publisher(20, String(repeating: "é", count: 150))]))),
            ("100 streams", Janus.event(data: Janus.publishersEvent([#"{"id":20,"streams":[\#(Array(repeating: #"{"type":"audio","mid":"0"}"#, count: 100).joined(separator: ","))]}"#]))),
            ("jsep without sdp", Janus.event(data: #"{"videoroom":"event","configured":"ok"}"#).replacingOccurrences(of: "}}}", with: #"}},"jsep":{"type":"answer"}}"#)),
            ("jsep with a number sdp", Janus.event(data: #"{"videoroom":"event","configured":"ok"}"#).replacingOccurrences(of: "}}}", with: #"}},"jsep":{"type":"answer","sdp":5}}"#)),
            ("jsep of an odd type", Janus.event(data: #"{"videoroom":"event","configured":"ok"}"#, jsep: ("pranswer", "v=0"))),
            ("an unknown transaction's success", Janus.success("zzz", id: 5)),
            ("an unknown transaction's ack", Janus.ack("zzz")),
            ("an unknown transaction's event", Janus.event(transaction: "zzz", data: Janus.joined(id: 99))),
            ("an unknown transaction's error", Janus.error("zzz", code: 458, reason: "No such session")),
            ("a long transaction", Janus.ack(String(repeating: "t", count: 1000))),
            ("a bad error code", #"{"janus":"error","transaction":"c1","error":{"code":"x","reason":"r"}}"#),
            ("a huge error code", Janus.event(data: #"{"videoroom":"event","error_code":1000000000,"error":"x"}"#)),
            ("a timeout of another session", #"{"janus":"timeout","session_id":99}"#),
            ("a talking id of 0", Janus.event(data: #"{"videoroom":"talking","id":0}"#)),
            ("unpublished -1", Janus.event(data: #"{"videoroom":"event","unpublished":-1}"#)),
            ("leaving a string", Janus.event(data: #"{"videoroom":"event","leaving":"x"}"#)),
            ("a subscriber stream of unknown type", Janus.event(Janus.subscriberHandle, data: #"{"videoroom":"updated","streams":[{"type":"foo","mid":"0"}]}"#, jsep: ("offer", "v=0"))),
            ("repeated subscriber mids", Janus.event(Janus.subscriberHandle, data: #"{"videoroom":"updated","streams":[{"type":"audio","mid":"0"},{"type":"video","mid":"0"}]}"#, jsep: ("offer", "v=0"))),
            ("a subscriber stream's string feed", Janus.event(Janus.subscriberHandle, data: #"{"videoroom":"updated","streams":[{"type":"audio","mid":"0","feed_id":"20"}]}"#, jsep: ("offer", "v=0"))),
            ("an escape sequence in a reason", #"{"janus":"hangup","session_id":\#(s),"sender":\#(p),"reason":"\u001b[2J\u001b]0;pwned\u0007\n2nd line\u202e"}"#),
            ("an unknown janus message", #"{"janus":"\u001b[31mred"}"#),
        ]
        list.append(("a 300 KiB frame", #"{"janus":"ack","transaction":""# + String(repeating: "a", count: 300_000) + #""}"#))
        var bytes = list.map { ($0.0, Array($0.1.utf8)) }
        bytes.append(("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]))
        bytes.append(("NUL bytes", [0, 0, 0]))
        return bytes
    }()

    @Test func hostileMessagesAreDroppedWithALogLineAndTheClientGoesOn() {
        var h = JanusSubscriptionTests.subscribed()
        h.input(.subscriberAnswer(sdp: "v=0\r\n"))
        let sentBefore = h.sent.count
        for (name, bytes) in Self.hostile {
            let effects = h.input(.message(bytes))
            #expect(effects.withoutLogs.isEmpty, "\(name): \(effects.withoutLogs)")
            #expect(!effects.logs.isEmpty, "\(name): no log line")
            for line in effects.logs {
                #expect(line.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F && $0 != "\u{202E}" }, "\(name): \(line)")
                #expect(line.utf8.count <= 4200, "\(name): a \(line.utf8.count)-byte log line")
            }
        }
        #expect(h.sent.count == sentBefore)
        // Still in the room, still tracking it.
        #expect(h.janus(Janus.event(data: #"{"videoroom":"talking","room":1234,"id":20}"#)) == [.talking(feed: 20, true)])
        #expect(h.janus(Janus.event(data: #"{"videoroom":"event","room":1234,"unpublished":20}"#)) == [.participantLeft(feed: 20)])
    }

    @Test func oneBadPublisherEntryDoesNotDropTheOthers() {
        var h = JanusHarness()
        _ = h.joinRoom()
        let effects = h.janus(Janus.event(data: Janus.publishersEvent([#"{"id":"21"}"#, Janus.publisher(22, "ok"), #"{"id":-3}"#])))
        #expect(effects.withoutLogs == [.participant(feed: 22, display: "ok"), .participantMedia(feed: 22, audioSending: true, videoSending: true)])
        #expect(effects.logs.count == 2)
        #expect(effects.logs.first?.contains("string ids (string_ids) are not supported") == true)
    }

    @Test func aRoomOfMoreThanTheKnownLimitIsBounded() {
        var configuration = JanusVideoRoomConfiguration(room: Janus.room, display: "me")
        configuration.limits.maxKnownPublishers = 100
        var h = JanusHarness(configuration)
        _ = h.joinRoom()
        var participants = 0
        for batch in 0..<4 {
            let list = (0..<50).map { Janus.publisher(UInt64(1000 + batch * 50 + $0), "p") }
            participants += h.janus(Janus.event(data: Janus.publishersEvent(list))).filter {
                if case .participant = $0 { true } else { false }
            }.count
        }
        #expect(participants == 100)
    }

    /// Valid messages of every kind, mutated; each fed to a copy of a client in the room, and a running client
    /// takes them all in turn (with time passing). Nothing may trap. 20,000 inputs, or `CONFTUI_FUZZ_ITERATIONS`
    /// (`make fuzz`).
    @Test func seededFuzzOfRecordedMessagesNeverTraps() {
        let s = Janus.session, p = Janus.publisherHandle, sub = Janus.subscriberHandle
        let recorded: [String] = [
            Janus.success("c1", id: s), Janus.success("c2", id: p), Janus.ack("c3"),
            Janus.event(transaction: "c3", data: Janus.joined(id: 10, publishers: [Janus.publisher(20, "bob"), Janus.publisher(21, "eve", video: false)])),
            Janus.event(transaction: "c4", data: #"{"videoroom":"event","room":1234,"configured":"ok"}"#, jsep: ("answer", Janus.sdp("a"))),
            Janus.event(data: Janus.publishersEvent([Janus.publisher(30, "carol")])),
            Janus.event(sub, transaction: "c6", data: #"{"videoroom":"attached","room":1234,"streams":\#(Janus.streams([20, 30]))}"#, jsep: ("offer", Janus.sdp("o"))),
            Janus.event(sub, data: #"{"videoroom":"updated","room":1234,"streams":\#(Janus.streams([nil, 30]))}"#, jsep: ("offer", Janus.sdp("o2"))),
            Janus.event(sub, transaction: "c8", data: #"{"videoroom":"updating","room":1234}"#),
            Janus.event(data: #"{"videoroom":"event","room":1234,"unpublished":20}"#),
            Janus.event(data: #"{"videoroom":"event","room":1234,"leaving":21,"display":"eve"}"#),
            Janus.event(data: #"{"videoroom":"talking","room":1234,"id":30,"mindex":0,"mid":"0","audio-level-dBov-avg":-40.5}"#),
            Janus.event(data: #"{"videoroom":"event","error_code":426,"error":"No such room (1234)"}"#, jsep: nil),
            Janus.pluginSuccess("c9", data: #"{"videoroom":"created","room":1234,"permanent":false}"#),
            Janus.error("c10", code: 458, reason: "No such session"),
            #"{"janus":"webrtcup","session_id":\#(s),"sender":\#(p)}"#,
            #"{"janus":"media","session_id":\#(s),"sender":\#(p),"type":"video","receiving":false}"#,
            #"{"janus":"slowlink","session_id":\#(s),"sender":\#(sub),"uplink":false,"lost":3}"#,
            #"{"janus":"hangup","session_id":\#(s),"sender":\#(sub),"reason":"ICE failed"}"#,
            #"{"janus":"detached","session_id":\#(s),"sender":\#(sub)}"#,
            #"{"janus":"timeout","session_id":\#(s)}"#,
        ]
        let corpus = recorded.map { Array($0.utf8) }
        let tokens: [[UInt8]] = ["\"", "{", "}", "[", "]", ",", ":", "-", "0", "9007199254740993", "1e999", "\"x\"", "null",
                                 "true", "\\u0000", "\\", "18446744073709551616", "-1", "[[[[[[[[", "\"20\""].map { Array($0.utf8) }
        var random = SplitMixRandom(seed: 30)
        func mutate(_ input: [UInt8]) -> [UInt8] {
            var b = input
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: if !b.isEmpty { b[at] = UInt8.random(in: 0...255, using: &random) }
                case 1: b.insert(contentsOf: tokens[Int.random(in: 0..<tokens.count, using: &random)], at: at)
                case 2: if !b.isEmpty { b.removeSubrange(at..<min(b.count, at + Int.random(in: 1...16, using: &random))) }
                case 3: if !b.isEmpty { b.insert(contentsOf: b[at..<min(b.count, at + Int.random(in: 1...64, using: &random))], at: at) }
                case 4:   // a number replaced
                    if let digit = b[at...].firstIndex(where: { $0 >= 0x30 && $0 <= 0x39 }) {
                        var end = digit
                        while end < b.count, b[end] >= 0x30, b[end] <= 0x39 { end += 1 }
                        b.replaceSubrange(digit..<end, with: tokens[[9, 10, 15, 16, 8][Int.random(in: 0..<5, using: &random)]])
                    }
                default: if !b.isEmpty { b[at] ^= 1 << UInt8.random(in: 0...7, using: &random) }
                }
            }
            return b
        }

        var base = JanusSubscriptionTests.subscribed()
        base.input(.subscriberAnswer(sdp: "v=0\r\n"))
        var joining = JanusHarness()
        joining.input(.connected)
        joining.janus(Janus.success(joining.lastTransaction, id: s))
        var running = base
        let started = MonotonicClock.now()
        var effectsSeen = 0
        var iterations = 20_000
        if let raw = getenv("CONFTUI_FUZZ_ITERATIONS"), let n = Int(String(cString: raw)), n > iterations { iterations = n }
        for i in 0..<iterations {
            let message = mutate(corpus[Int.random(in: 0..<corpus.count, using: &random)])
            var copy = i % 2 == 0 ? base.client : joining.client
            effectsSeen += copy.handle(.message(message), now: base.now).effects.count
            let output = running.client.handle(.message(message), now: running.now)
            effectsSeen += output.effects.count
            if i % 50 == 0 {
                running.now = running.now + 7
                _ = running.client.handle(.timer, now: running.now)
                _ = running.client.handle(.subscriberAnswer(sdp: "v=0\r\n"), now: running.now)
            }
            if i % 2_000 == 1_999 { running = base }   // a failed or ended client takes little; start again
        }
        #expect(effectsSeen > iterations)
        #expect(MonotonicClock.now() - started < 30 * Double(iterations) / 20_000)
    }
}
