import Testing
@testable import EngineRTP
@testable import EngineTransport

private let pt96 = PayloadType(rawValue: 96)!

struct RTPPacketCase: CustomTestStringConvertible, Sendable {
    var name: String
    var packet: RTPPacket
    var bytes: [UInt8]
    var testDescription: String { name }
}

private let rtpCases: [RTPPacketCase] = [
    RTPPacketCase(name: "minimal, marker, PT 96",
                  packet: RTPPacket(marker: true, payloadType: pt96, sequenceNumber: SequenceNumber(0x1234), timestamp: 0xDEAD_BEEF,
                                    ssrc: SSRC(0x1122_3344), payload: [1, 2, 3]),
                  bytes: [0x80, 0xE0, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 0x11, 0x22, 0x33, 0x44, 1, 2, 3]),
    // RFC 8285 §4.2 one-byte form: the MID "0" as id 3 (0x30 = id 3, L=0 → 1 byte), padded to a word.
    RTPPacketCase(name: "one-byte extension (mid)",
                  packet: RTPPacket(payloadType: PayloadType(rawValue: 111)!, sequenceNumber: SequenceNumber(1), timestamp: 960,
                                    ssrc: SSRC(0xCAFE_BABE), headerExtensions: .elements([.init(id: 3, data: Array("0".utf8))]),
                                    payload: [0xAA]),
                  bytes: [0x90, 0x6F, 0x00, 0x01, 0x00, 0x00, 0x03, 0xC0, 0xCA, 0xFE, 0xBA, 0xBE,
                          0xBE, 0xDE, 0x00, 0x01, 0x30, 0x30, 0x00, 0x00, 0xAA]),
    // RFC 8285 §4.3 two-byte form: id 20 does not fit the one-byte form.
    RTPPacketCase(name: "two-byte extension",
                  packet: RTPPacket(payloadType: pt96, sequenceNumber: SequenceNumber(0xFFFF), timestamp: 1,
                                    ssrc: SSRC(1), headerExtensions: .elements([.init(id: 20, data: [7, 8])]), payload: [9]),
                  bytes: [0x90, 0x60, 0xFF, 0xFF, 0, 0, 0, 1, 0, 0, 0, 1, 0x10, 0x00, 0x00, 0x01, 20, 2, 7, 8, 9]),
    RTPPacketCase(name: "two CSRCs and 4 bytes of padding",
                  packet: RTPPacket(payloadType: pt96, sequenceNumber: SequenceNumber(2), timestamp: 3, ssrc: SSRC(4),
                                    csrcs: [SSRC(5), SSRC(6)], payload: [0xFF, 0xEE], paddingLength: 4),
                  bytes: [0xA2, 0x60, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0xFF, 0xEE, 0, 0, 0, 4]),
    RTPPacketCase(name: "non-RFC-8285 extension profile kept verbatim",
                  packet: RTPPacket(payloadType: pt96, sequenceNumber: SequenceNumber(9), timestamp: 9, ssrc: SSRC(9),
                                    headerExtensions: .other(profile: 0x1234, data: [1, 2, 3, 4]), payload: [0]),
                  bytes: [0x90, 0x60, 0, 9, 0, 0, 0, 9, 0, 0, 0, 9, 0x12, 0x34, 0, 1, 1, 2, 3, 4, 0]),
]

@Test(arguments: rtpCases)
func rtpPacketsWriteAndParseExactBytes(_ c: RTPPacketCase) throws {
    #expect(c.packet.serialized() == c.bytes)
    #expect(try RTPPacket.parse(c.bytes) == c.packet)
}

@Test func oneByteExtensionsWithPaddingAndAbsSendTimeAreRead() throws {
    // id 1 = abs-send-time (3 bytes), a padding byte, id 3 = mid "av" — as Chrome sends them.
    let bytes: [UInt8] = [0x90, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE, 0xDE, 0, 2,
                          0x12, 0x01, 0x02, 0x03, 0x00, 0x31, 0x61, 0x76, 0x55]
    let p = try RTPPacket.parse(bytes)
    #expect(p.headerExtensions?.elements == [.init(id: 1, data: [1, 2, 3]), .init(id: 3, data: Array("av".utf8))])
    let map = RTPHeaderExtensionMap(ids: [RTPHeaderExtensionMap.midURI: 3, RTPHeaderExtensionMap.absSendTimeURI: 1])
    #expect(map.mid(of: p) == Mid(rawValue: "av"))
    #expect(RTPHeaderExtensionMap().mid(of: p) == nil)
    #expect(p.payload == [0x55])
}

@Test(arguments: [
    ("version 1", [0x40, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] as [UInt8]),
    ("CSRC list overruns", [0x81, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]),
    ("extension length overruns", [0x90, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE, 0xDE, 0, 2, 0x10, 0, 0, 0]),
    ("one-byte element overruns", [0x90, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0xBE, 0xDE, 0, 1, 0x13, 0, 0, 0]),
    ("padding count 0", [0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0]),
    ("padding longer than the payload", [0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 9]),
    ("padding bit without bytes", [0xA0, 0x60, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]),
])
func malformedRTPIsRefused(_ name: String, _ bytes: [UInt8]) {
    #expect(throws: EngineError.self, "\(name)") { try RTPPacket.parse(bytes) }
}

@Test func everyTruncationOfTheHeaderIsRefused() throws {
    for c in rtpCases {
        let headerEnd = c.bytes.count - c.packet.payload.count - Int(c.packet.paddingLength)
        for n in 0..<c.bytes.count {
            let prefix = Array(c.bytes.prefix(n))
            if n < headerEnd {
                #expect(throws: EngineError.self, "\(c.name) cut at \(n)") { try RTPPacket.parse(prefix) }
            } else {
                // Cutting the payload leaves a valid, shorter packet or bad padding: never a trap.
                _ = try? RTPPacket.parse(prefix)
            }
        }
    }
}

@Test func rtpAndRtcpAreTellApartByTheSecondByte() {
    #expect(RTPPacket.looksLikeRTCP([0x80, 200, 0, 6]))
    #expect(RTPPacket.looksLikeRTCP([0x81, 205, 0, 3]))
    #expect(!RTPPacket.looksLikeRTCP([0x80, 0xE0, 0, 1]))   // PT 96 with marker = 224
    #expect(!RTPPacket.looksLikeRTCP([0x80, 111, 0, 1]))
}

@Test func sequenceNumbersExtendAcrossTheWrap() {
    var u = SequenceUnwrapper()
    let first = u.unwrap(SequenceNumber(65_534)).rawValue
    #expect(u.unwrap(SequenceNumber(65_535)).rawValue == first + 1)
    #expect(u.unwrap(SequenceNumber(0)).rawValue == first + 2)
    #expect(u.unwrap(SequenceNumber(65_533)).rawValue == first - 1)   // reordered, before the first
    #expect(u.unwrap(SequenceNumber(5)).rawValue == first + 7)
    // Many wraps in steps under half the space.
    var v = SequenceUnwrapper()
    var last = v.unwrap(SequenceNumber(0)).rawValue
    var seq: UInt16 = 0
    for _ in 0..<1_000 {
        seq &+= 20_000
        let e = v.unwrap(SequenceNumber(seq)).rawValue
        #expect(e == last + 20_000)
        last = e
    }
    #expect(ExtendedSequenceNumber(70_000).wire == SequenceNumber(4_464))
}

@Test func timestampsExtendAcrossTheWrap() {
    var u = TimestampUnwrapper()
    let a = u.unwrap(UInt32.max - 959)
    #expect(u.unwrap(0) == a + 960)
    #expect(u.unwrap(960) == a + 1_920)
    #expect(u.unwrap(UInt32.max - 959 - 960) == a - 960)
}
