import Testing
@testable import Signaling

/// conftui's layer wish on a Janus room's data channel: read exactly, and nothing else taken for it.
@Suite struct JanusLayerWishTests {
    @Test func eachWishReadsBackAsItself() {
        for wish in [JanusLayerWish.full, .low] {
            #expect(JanusLayerWish.parse(wish.message) == wish)
        }
        #expect(String(decoding: JanusLayerWish.low.message, as: UTF8.self) == #"{"type":"__layers","take":"low"}"#)
    }

    @Test func anythingElseIsNotAWish() {
        let others = [
            #"{"type":"__msg","data":"hello"}"#,
            #"{"type":"__layers","take":"medium"}"#,
            #"{"type":"__layers","take":1}"#,
            #"{"type":"__layers"}"#,
            #"{"type":"__layers","take":"low","data":"and chat"}"#,
            #"{"type":"__layers","take":{"x":"low"}}"#,
            #"["__layers","low"]"#,
            "__layers low",
            "",
            #"{"type":"__layers","take":"low"}"# + String(repeating: " ", count: 200),
        ]
        for text in others {
            #expect(JanusLayerWish.parse(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(JanusLayerWish.parse([0xff, 0xfe, 0x7b]) == nil)
    }
}
