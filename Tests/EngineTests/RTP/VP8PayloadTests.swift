import Testing
@testable import EngineMedia
@testable import EngineRTP
@testable import EngineTransport

@Test(arguments: [
    // RFC 7741 §4.2 layouts.
    ("no extension", VP8PayloadDescriptor(startOfPartition: true, partitionIndex: 0), [0x10] as [UInt8]),
    ("7-bit PictureID", VP8PayloadDescriptor(startOfPartition: false, partitionIndex: 1, pictureId: 0x55, pictureIdIs15Bit: false), [0x81, 0x80, 0x55]),
    ("15-bit PictureID", VP8PayloadDescriptor(startOfPartition: true, pictureId: 0x1234), [0x90, 0x80, 0x92, 0x34]),
    ("N, L, T, K", VP8PayloadDescriptor(nonReference: true, startOfPartition: true, pictureId: 0x7FFF, tl0PictureIndex: 9,
                                         temporalLayerIndex: 2, layerSync: true, keyIndex: 5),
     [0xB0, 0xF0, 0xFF, 0xFF, 0x09, 0xA5]),
])
func vp8DescriptorsWriteAndParseExactBytes(_ name: String, _ d: VP8PayloadDescriptor, _ bytes: [UInt8]) throws {
    #expect(d.serialized() == bytes, "\(name)")
    let (parsed, size) = try VP8PayloadDescriptor.parse(bytes + [0xFF])
    #expect(parsed == d)
    #expect(size == bytes.count)
    for n in 0...bytes.count {   // every truncation, including "descriptor but no data"
        #expect(throws: EngineError.self) { try VP8PayloadDescriptor.parse(Array(bytes.prefix(n))) }
    }
}

private func packets(for payloads: [[UInt8]], firstSeq: UInt16, timestamp: UInt32) -> [RTPPacket] {
    payloads.enumerated().map { i, p in
        RTPPacket(marker: i == payloads.count - 1, payloadType: PayloadType(rawValue: 96)!,
                  sequenceNumber: SequenceNumber(firstSeq &+ UInt16(i)), timestamp: timestamp, ssrc: SSRC(1), payload: p)
    }
}

@Test func packetizerFitsTheMTUAndTheDepacketizerRebuildsTheFrame() throws {
    var rng = SplitMixRandom(seed: 7)
    var packetizer = VP8Packetizer(maxPayloadSize: 1200, initialPictureId: 0x7FFE)
    for size in [1, 1196, 1197, 3000, 25_000] {
        let frame = (0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let payloads = packetizer.packetize(frame)
        #expect(payloads.allSatisfy { $0.count <= 1200 })
        #expect(payloads.count == (size + 1195) / 1196)
        let sizes = payloads.map(\.count)
        #expect(sizes.max()! - sizes.min()! <= 1, "pieces are near-equal")
        let rebuilt = try VP8Depacketizer.assemble(packets(for: payloads, firstSeq: 65_534, timestamp: 90))
        #expect(rebuilt.data == frame)
    }
    // The picture id is 15 bits and wraps.
    let ids = (0..<3).compactMap { _ in try? VP8PayloadDescriptor.parse(packetizer.packetize([1]).first!).0.pictureId }
    #expect(ids == [3, 4, 5])   // 0x7FFE, 0x7FFF, 0, 1, 2 were used above
}

@Test func theDepacketizerRefusesFramesWithHoles() throws {
    var packetizer = VP8Packetizer(maxPayloadSize: 100)
    let payloads = packetizer.packetize([UInt8](repeating: 1, count: 500))
    var ps = packets(for: payloads, firstSeq: 10, timestamp: 1)
    #expect(throws: EngineError.self) { try VP8Depacketizer.assemble(Array(ps.dropFirst())) }          // no start
    #expect(throws: EngineError.self) { try VP8Depacketizer.assemble(Array(ps.dropLast())) }           // no marker
    var gap = ps; gap.remove(at: 2)
    #expect(throws: EngineError.self) { try VP8Depacketizer.assemble(gap) }                             // hole
    ps[3].timestamp = 2
    #expect(throws: EngineError.self) { try VP8Depacketizer.assemble(ps) }                              // two frames
}

@Test func keyframesAreRecognisedFromThePayloadHeader() throws {
    let encoder = try VP8Encoder(width: 64, height: 48, bitrateKbps: 100)
    let bars = try ColorBarsSource(width: 64, height: 48)
    var packetizer = VP8Packetizer(maxPayloadSize: 200)
    var kinds: [(Bool, Bool)] = []
    for i in 0..<4 {
        let source = try #require(try bars.nextFrame())
        let encoded = try #require(try encoder.encode(source, forceKeyframe: i == 2))
        let payloads = packetizer.packetize(encoded.data)
        kinds.append((VP8PayloadDescriptor.isKeyframe(payload: payloads[0]), encoded.isKeyframe))
        if payloads.count > 1 { #expect(!VP8PayloadDescriptor.isKeyframe(payload: payloads[1])) }   // not a frame start
        let frame = try VP8Depacketizer.assemble(packets(for: payloads, firstSeq: 0, timestamp: 0))
        #expect(frame.isKeyframe == VP8Decoder.isKeyframe(frame.data))
    }
    #expect(kinds.map(\.0) == kinds.map(\.1))
    #expect(kinds.map(\.0) == [true, false, true, false])
}

@Test func opusPacketsStepTheTimestampBy960AndMarkTalkspurts() {
    var p = OpusPacketizer(initialTimestamp: UInt32.max - 959)
    let a = p.next(packet: [1, 2, 3], isDTX: false)
    let b = p.next(packet: [4], isDTX: false)
    let c = p.next(packet: [0], isDTX: true)
    let d = p.next(packet: [5], isDTX: false)
    #expect(a?.timestamp == UInt32.max - 959 && a?.marker == true)
    #expect(b?.timestamp == 0 && b?.marker == false)
    #expect(c == nil)
    #expect(d?.timestamp == 1_920 && d?.marker == true)
}
