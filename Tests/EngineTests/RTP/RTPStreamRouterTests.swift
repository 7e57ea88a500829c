import Testing
@testable import EngineRTP
@testable import EngineTransport

@Test func packetsAreRoutedByMidThenSSRCThenUniquePayloadType() {
    let midId: UInt8 = 4
    var router = RTPStreamRouter(extensions: RTPHeaderExtensionMap(ids: [RTPHeaderExtensionMap.midURI: midId]))
    router.expect(payloadTypes: [PayloadType(rawValue: 111)!], mid: "0")
    router.expect(payloadTypes: [PayloadType(rawValue: 96)!, PayloadType(rawValue: 97)!], mid: "1")
    router.expect(payloadTypes: [PayloadType(rawValue: 96)!], mid: "2")      // 96 now ambiguous
    router.expect(ssrc: SSRC(500), mid: "2")
    func packet(pt: UInt8, ssrc: UInt32, mid: String? = nil) -> RTPPacket {
        RTPPacket(payloadType: PayloadType(rawValue: pt)!, sequenceNumber: SequenceNumber(1), timestamp: 0, ssrc: SSRC(ssrc),
                  headerExtensions: mid.map { .elements([.init(id: midId, data: Array($0.utf8))]) }, payload: [0])
    }
    // 1. MID extension wins, and latches the SSRC.
    #expect(router.route(packet(pt: 96, ssrc: 7, mid: "1")) == "1")
    #expect(router.route(packet(pt: 96, ssrc: 7)) == "1")
    // 2. Announced SSRC.
    #expect(router.route(packet(pt: 96, ssrc: 500)) == "2")
    // 3. Unique payload type, then latched.
    #expect(router.route(packet(pt: 111, ssrc: 9)) == "0")
    #expect(router.mid(of: SSRC(9)) == "0")
    // 4. Ambiguous payload type, unknown SSRC, no extension: unroutable.
    #expect(router.route(packet(pt: 96, ssrc: 10)) == nil)
    #expect(router.route(packet(pt: 97, ssrc: 11)) == "1")
}
