import Testing
@testable import EngineTransport

@Suite struct PacketClassTests {
    @Test func firstByteRangesOfRFC7983() {
        let table: [(UInt8, UInt8, PacketClass)] = [
            (0, 0x01, .stun), (3, 0x01, .stun), (4, 0, .unknown), (15, 0, .unknown), (16, 0, .zrtp), (19, 0, .zrtp),
            (20, 0, .dtls), (22, 0xFE, .dtls), (63, 0, .dtls), (64, 0, .turnChannel), (79, 0, .turnChannel),
            (80, 0, .unknown), (127, 0, .unknown), (0x80, 96, .rtp), (0x80, 96 | 0x80, .rtp), (0x80, 111, .rtp),
            (0x80, 200, .rtcp), (0x81, 201, .rtcp), (0x80, 192, .rtcp), (0x80, 223, .rtcp), (0x80, 224, .rtp),
            (191, 0, .rtp), (192, 0, .unknown), (255, 0, .unknown),
        ]
        for (first, second, expected) in table {
            #expect(PacketClass([first, second, 0, 0]) == expected, "first byte \(first), second \(second)")
        }
        #expect(PacketClass([]) == .unknown)
        #expect(PacketClass([0x80]) == .unknown)
        #expect(PacketClass(RFC5769.request) == .stun)
    }
}
