import Testing
@testable import Signaling

@Suite struct PeerMessageTests {
    static func parse(_ text: String, max: Int = SkyRTCPeerMessage.defaultMaxMessageSize) throws(SkyRTCPeerMessageError) -> SkyRTCPeerMessage {
        try SkyRTCPeerMessage.parse(Array(text.utf8), maxMessageSize: max)
    }

    static let id = FileSendID("KX7F2-9ZQ")!

    @Test(arguments: [
        (#"{"type":"__msg","data":"hello"}"#, "hello"),
        (#"{"type":"other","data":"hi"}"#, "hi"),
        (#"{"data":"no type"}"#, "no type"),
        (#"{"type":"__msg","data":5}"#, "5"),
        (#"{"type":"__msg","data":true}"#, "true"),
        (#"{"type":"__msg","data":null}"#, "null"),
        (#"{"type":"__msg","data":{"a":[1,"b"]}}"#, #"{"a":[1,"b"]}"#),
        (#"{"type":"__msg"}"#, #"{"type":"__msg"}"#),
        ("plain text, not JSON", "plain text, not JSON"),
        ("[1,2]", "[1,2]"),
        ("\"just a string\"", "\"just a string\""),
        ("", ""),
    ])
    func everythingButFileIsChat(_ text: String, _ shown: String) throws {
        #expect(try Self.parse(text) == .chat(shown))
    }

    @Test(arguments: [
        (#"{"name":"a.txt","size":12,"sendId":"KX7F2-9ZQ","type":"__file","signal":"ask"}"#,
         SkyRTCFileSignal.ask(sendId: id, name: "a.txt", size: 12)),
        (#"{"type":"__file","signal":"accept","sendId":"KX7F2-9ZQ"}"#, .accept(sendId: id)),
        (#"{"type":"__file","signal":"refuse","sendId":"KX7F2-9ZQ"}"#, .refuse(sendId: id)),
        (#"{"type":"__file","signal":"chunk","sendId":"KX7F2-9ZQ","last":false,"data":"data:","percent":33.33333333333333}"#,
         .chunk(sendId: id, data: "data:", last: false, percent: 33.33333333333333)),
        (#"{"type":"__file","signal":"chunk","sendId":"KX7F2-9ZQ","data":"QQ==","last":true}"#,
         .chunk(sendId: id, data: "QQ==", last: true, percent: nil)),
        (#"{"type":"__file","signal":"ask","sendId":"abc","name":"","size":9007199254740992}"#,
         .ask(sendId: FileSendID("abc")!, name: "", size: 1 << 53)),
        (#"{"type":"__file","signal":"ask","sendId":"abc","name":"x","size":3.0}"#, .ask(sendId: FileSendID("abc")!, name: "x", size: 3)),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":"","last":false,"percent":100}"#,
         .chunk(sendId: FileSendID("a")!, data: "", last: false, percent: 100)),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":"","last":false,"percent":null}"#,
         .chunk(sendId: FileSendID("a")!, data: "", last: false, percent: nil)),
    ])
    func fileSignals(_ text: String, _ signal: SkyRTCFileSignal) throws {
        #expect(try Self.parse(text) == .file(signal))
    }

    @Test(arguments: [
        (#"{"type":"__file"}"#, SkyRTCPeerMessageError.badField("signal")),
        (#"{"type":"__file","signal":"accept"}"#, .badField("sendId")),
        (#"{"type":"__file","signal":"accept","sendId":""}"#, .badField("sendId")),
        (#"{"type":"__file","signal":"accept","sendId":"a.b"}"#, .badField("sendId")),
        (#"{"type":"__file","signal":"accept","sendId":"../x"}"#, .badField("sendId")),
        (#"{"type":"__file","signal":"accept","sendId":7}"#, .badField("sendId")),
        ("{\"type\":\"__file\",\"signal\":\"accept\",\"sendId\":\"\(String(repeating: "A", count: 65))\"}", .badField("sendId")),
        (#"{"type":"__file","signal":"ask","sendId":"a","size":1}"#, .badField("name")),
        ("{\"type\":\"__file\",\"signal\":\"ask\",\"sendId\":\"a\",\"name\":\"\(String(repeating: "é", count: 128))\",\"size\":1}", .badField("name")),
        (#"{"type":"__file","signal":"ask","sendId":"a","name":"x","size":-1}"#, .badField("size")),
        (#"{"type":"__file","signal":"ask","sendId":"a","name":"x","size":1.5}"#, .badField("size")),
        (#"{"type":"__file","signal":"ask","sendId":"a","name":"x","size":9007199254740993}"#, .badField("size")),
        (#"{"type":"__file","signal":"ask","sendId":"a","name":"x","size":1e300}"#, .badField("size")),
        (#"{"type":"__file","signal":"ask","sendId":"a","name":"x","size":"1"}"#, .badField("size")),
        (#"{"type":"__file","signal":"chunk","sendId":"a","last":true}"#, .badField("data")),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":"","last":1}"#, .badField("last")),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":""}"#, .badField("last")),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":"","last":false,"percent":100.5}"#, .badField("percent")),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":"","last":false,"percent":-1}"#, .badField("percent")),
        (#"{"type":"__file","signal":"chunk","sendId":"a","data":"","last":false,"percent":"5"}"#, .badField("percent")),
        (#"{"type":"__file","signal":"close","sendId":"a"}"#, .ignoredSignal("close")),
        (#"{"type":"__file","signal":"bogus"}"#, .ignoredSignal("bogus")),
    ])
    func badFileMessagesAreRefused(_ text: String, _ error: SkyRTCPeerMessageError) {
        #expect(throws: error) { try Self.parse(text) }
    }

    @Test func sizeAndEncodingBounds() {
        let big = #"{"type":"__msg","data":""# + String(repeating: "x", count: 100) + #""}"#
        #expect(throws: SkyRTCPeerMessageError.tooLarge(big.utf8.count, limit: 100)) { try Self.parse(big, max: 100) }
        #expect((try? Self.parse(big, max: big.utf8.count)) == .chat(String(repeating: "x", count: 100)))
        #expect(throws: SkyRTCPeerMessageError.notUTF8) { try SkyRTCPeerMessage.parse([0x7B, 0xFF, 0x7D]) }
        // Nesting past the bound is not JSON to us, so it is shown as text rather than recursed into.
        let deep = String(repeating: "[", count: 10_000)
        #expect((try? Self.parse(deep)) == .chat(deep))
    }

    @Test(arguments: [
        (SkyRTCPeerMessage.chat("hello \"you\""), #"{"type":"__msg","data":"hello \"you\""}"#),
        (.file(.ask(sendId: id, name: "a/b.txt", size: 12)), #"{"name":"a/b.txt","size":12,"sendId":"KX7F2-9ZQ","type":"__file","signal":"ask"}"#),
        (.file(.accept(sendId: id)), #"{"type":"__file","signal":"accept","sendId":"KX7F2-9ZQ"}"#),
        (.file(.refuse(sendId: id)), #"{"type":"__file","signal":"refuse","sendId":"KX7F2-9ZQ"}"#),
        (.file(.chunk(sendId: id, data: "data:a/b;base64,QQ", last: false, percent: 50)),
         #"{"type":"__file","signal":"chunk","sendId":"KX7F2-9ZQ","last":false,"data":"data:a/b;base64,QQ","percent":50}"#),
        (.file(.chunk(sendId: id, data: "==", last: true, percent: nil)),
         #"{"type":"__file","signal":"chunk","sendId":"KX7F2-9ZQ","data":"==","last":true}"#),
    ])
    func encodesAsTheOriginalBrowserClient(_ message: SkyRTCPeerMessage, _ text: String) throws {
        #expect(message.jsonText == text)
        #expect(try SkyRTCPeerMessage.parse(message.jsonBytes) == message)
    }

    @Test func generatedIdsAreUppercaseBase36() {
        var random = SeededRandom(seed: 1)
        for _ in 0..<100 {
            let id = FileSendID.random(using: &random)
            #expect(id.rawValue.count == FileSendID.generatedLength)
            #expect(id.rawValue.allSatisfy { $0.isNumber || ($0.isUppercase && $0.isASCII) })
            #expect(FileSendID(id.rawValue) == id)
        }
    }
}

/// SplitMix64, so every randomised test repeats exactly.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
