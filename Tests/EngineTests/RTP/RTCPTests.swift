import Testing
@testable import EngineRTP
@testable import EngineTransport

struct RTCPCase: CustomTestStringConvertible, Sendable {
    var name: String
    var packets: [RTCPPacket]
    var bytes: [UInt8]
    var testDescription: String { name }
}

private let block = ReportBlock(ssrc: SSRC(0x0102_0304), fractionLost: 0x40, cumulativeLost: -2, extendedHighestSequence: 0x0001_0005,
                                jitter: 0x100, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
private let blockBytes: [UInt8] = [1, 2, 3, 4, 0x40, 0xFF, 0xFF, 0xFE, 0, 1, 0, 5, 0, 0, 1, 0, 0xB7, 0x05, 0x20, 0x00, 0, 5, 0x40, 0]

private let rtcpCases: [RTCPCase] = [
    RTCPCase(name: "SR + SDES CNAME compound",
             packets: [.senderReport(SenderReport(ssrc: SSRC(0x1122_3344), ntpTimestamp: NTPTimestamp(rawValue: 0xEB6E_4E60_8000_0000),
                                                  rtpTimestamp: 0x0001_0000, packetCount: 10, octetCount: 1000)),
                       .sourceDescription(SourceDescription(ssrc: SSRC(0x1122_3344), cname: "abcd"))],
             bytes: [0x80, 0xC8, 0, 6, 0x11, 0x22, 0x33, 0x44, 0xEB, 0x6E, 0x4E, 0x60, 0x80, 0, 0, 0,
                     0, 1, 0, 0, 0, 0, 0, 10, 0, 0, 0x03, 0xE8,
                     0x81, 0xCA, 0, 3, 0x11, 0x22, 0x33, 0x44, 1, 4, 0x61, 0x62, 0x63, 0x64, 0, 0]),
    RTCPCase(name: "RR with one report block",
             packets: [.receiverReport(ReceiverReport(ssrc: SSRC(9), reportBlocks: [block]))],
             bytes: [0x81, 0xC9, 0, 7, 0, 0, 0, 9] + blockBytes),
    // RFC 4585 §6.2.1: 100 lost, BLP bit 0 → 101, bit 2 → 103, bit 15 → 116; 117 needs a new entry.
    RTCPCase(name: "generic NACK",
             packets: [.nack(GenericNack(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), lost: [100, 101, 103, 116, 117].map { SequenceNumber($0) }))],
             bytes: [0x81, 0xCD, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 100, 0x80, 0x05, 0, 117, 0, 0]),
    RTCPCase(name: "PLI",
             packets: [.pictureLossIndication(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))],
             bytes: [0x81, 0xCE, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]),
    RTCPCase(name: "FIR (media SSRC 0, FCI SSRC + seq)",
             packets: [.fullIntraRequest(FullIntraRequest(senderSSRC: SSRC(1), entries: [.init(ssrc: SSRC(2), sequenceNumber: 7)]))],
             bytes: [0x84, 0xCE, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 7, 0, 0, 0]),
    // 1 000 000 b/s = 250 000 << 2: exp 2, mantissa 0x3D090 → 0x0BD090.
    RTCPCase(name: "REMB 1 Mb/s",
             packets: [.receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(1), bitrate: 1_000_000, ssrcs: [SSRC(0xAABB_CCDD)]))],
             bytes: [0x8F, 0xCE, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0x52, 0x45, 0x4D, 0x42, 1, 0x0B, 0xD0, 0x90, 0xAA, 0xBB, 0xCC, 0xDD]),
    RTCPCase(name: "BYE with reason",
             packets: [.goodbye(Goodbye(ssrcs: [SSRC(5)], reason: "bye"))],
             bytes: [0x81, 0xCB, 0, 2, 0, 0, 0, 5, 3, 0x62, 0x79, 0x65]),
]

@Test(arguments: rtcpCases)
func rtcpPacketsWriteAndParseExactBytes(_ c: RTCPCase) throws {
    #expect(RTCPPacket.compound(c.packets) == c.bytes)
    #expect(try RTCPPacket.parseCompound(c.bytes) == c.packets)
}

@Test func nackListsRoundTrip() {
    let lost: [UInt16] = [65_530, 65_535, 0, 3, 20, 40, 41]
    let nack = GenericNack(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), lost: lost.map { SequenceNumber($0) })
    #expect(nack.lostSequenceNumbers.map(\.rawValue) == lost)
    // 65530 covers 65531...10 (so 65535, 0, 3); 20 is 26 away → its own entry; 40 covers 41.
    #expect(nack.entries.count == 3)
}

@Test func unknownTypesAreSkippedAndReducedSizeIsAccepted() throws {
    let app: [UInt8] = [0x80, 204, 0, 2, 0, 0, 0, 1, 0x41, 0x42, 0x43, 0x44]       // APP
    let tmmbr: [UInt8] = [0x83, 205, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]                 // RTPFB FMT 3 (TMMBR)
    let afb: [UInt8] = [0x8F, 206, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0x58, 0x58, 0x58, 0x58]   // AFB that is not REMB
    let pli: [UInt8] = [0x81, 0xCE, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]
    // A reduced-size packet (RFC 5506): feedback alone, no leading report.
    #expect(try RTCPPacket.parseCompound(app + tmmbr + afb + pli) ==
            [.pictureLossIndication(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(2)))])
}

@Test func paddingIsTakenOnAnyPacketWhoseOwnLengthHoldsIt() throws {
    // libwebrtc pads each transport feedback message it batches into one datagram, not only the last one.
    let pliPadded: [UInt8] = [0xA1, 0xCE, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4]
    #expect(try RTCPPacket.parseCompound(pliPadded).count == 1)
    let pli: [UInt8] = [0x81, 0xCE, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2]
    #expect(try RTCPPacket.parseCompound(pliPadded + pli).count == 2)
    // A padding count larger than the packet's body, or 0, is refused.
    var overlong = pliPadded
    overlong[15] = 13
    #expect(throws: EngineError.self) { try RTCPPacket.parseCompound(overlong + pli) }
    overlong[15] = 0
    #expect(throws: EngineError.self) { try RTCPPacket.parseCompound(overlong) }
}

@Test func everyTruncationOfACompoundIsRefusedUnlessItEndsAtAPacketBoundary() throws {
    for c in rtcpCases {
        // Boundaries where a shorter compound is still whole.
        var boundaries: Set<Int> = []
        var offset = 0
        while offset < c.bytes.count {
            offset += (Int(c.bytes[offset + 2]) << 8 | Int(c.bytes[offset + 3]) + 1) * 4
            boundaries.insert(offset)
        }
        for n in 0..<c.bytes.count {
            let prefix = Array(c.bytes.prefix(n))
            if boundaries.contains(n) {
                #expect(try RTCPPacket.parseCompound(prefix) == Array(c.packets.prefix(boundaries.filter { $0 <= n }.count)))
            } else {
                #expect(throws: EngineError.self, "\(c.name) cut at \(n)") { try RTCPPacket.parseCompound(prefix) }
            }
        }
    }
}

@Test func roundTripTimeFollowsTheRFC3550Example() throws {
    // RFC 3550 §6.4.1 figure 2: A = 0xb710:8000 (46864.500 s), LSR = 0xb705:2000 (46853.125 s),
    // DLSR = 0x0005:4000 (5.250 s) → RTT 6.125 s.
    let arrival = NTPTimestamp(rawValue: UInt64(0xB710_8000) << 16)
    let rtt = try #require(block.roundTripTime(arrival: arrival))
    #expect(rtt == .milliseconds(6_125))
    var noSR = block
    noSR.lastSenderReport = 0
    #expect(noSR.roundTripTime(arrival: arrival) == nil)
}

@Test func ntpTimestampsCountFromTheEpoch() {
    let t = NTPTimestamp(TransportTime(nanoseconds: 1_500_000_000), epochSeconds: 100)
    #expect(t.rawValue == (101 << 32 | 0x8000_0000))
    #expect(t.middle32 == 101 << 16 | 0x8000)
}

@Test func rembKeepsLargeBitratesToEighteenBitsOfMantissa() throws {
    let remb = ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(1), bitrate: 123_456_789, ssrcs: [])
    guard case .receiverEstimatedMaxBitrate(let back) = try #require(try RTCPPacket.parseCompound(RTCPPacket.compound([.receiverEstimatedMaxBitrate(remb)])).first) else {
        Issue.record("not a REMB"); return
    }
    #expect(back.bitrate <= 123_456_789 && back.bitrate > 123_456_789 - (1 << 9))
}

@Test func sdesWithSeveralChunksAndItemsAndAByeWithoutReasonRoundTrip() throws {
    let sdes = SourceDescription(chunks: [
        .init(ssrc: SSRC(1), items: [.init(type: 1, value: Array("alice@host".utf8)), .init(type: 2, value: Array("Alice".utf8))]),
        .init(ssrc: SSRC(2), items: []),
        .init(ssrc: SSRC(3), items: [.init(type: 1, value: Array("x".utf8))]),
    ])
    let bye = Goodbye(ssrcs: [SSRC(1), SSRC(2)])
    let remb = ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(1), bitrate: 0, ssrcs: [])
    let bytes = RTCPPacket.compound([.sourceDescription(sdes), .goodbye(bye), .receiverEstimatedMaxBitrate(remb)])
    #expect(bytes.count % 4 == 0)
    let back = try RTCPPacket.parseCompound(bytes)
    #expect(back == [.sourceDescription(sdes), .goodbye(bye), .receiverEstimatedMaxBitrate(remb)])
    if case .sourceDescription(let s) = back[0] {
        #expect(s.chunks.map(\.cname) == ["alice@host", nil, "x"])
    }
}
