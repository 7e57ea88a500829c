import Testing
@testable import EngineRTP
@testable import EngineTransport

/// Seeded random inputs over every parser of the RTP layer: half pure noise, half mutations of
/// valid packets (which get much deeper into the parsers). Nothing may trap; whatever parses must
/// survive a write/parse round trip.
@Test func parsersSurviveOneHundredThousandRandomInputs() throws {
    var rng = SplitMixRandom(seed: 0xF022_7E57)
    let seeds: [[UInt8]] = [
        RTPPacket(marker: true, payloadType: PayloadType(rawValue: 96)!, sequenceNumber: SequenceNumber(7), timestamp: 9,
                  ssrc: SSRC(1), csrcs: [SSRC(2)], headerExtensions: .elements([.init(id: 3, data: [0x30]), .init(id: 1, data: [1, 2, 3])]),
                  payload: [0x90, 0x80, 0x80, 0x01, 0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A], paddingLength: 3).serialized(),
        RTCPPacket.compound([
            .senderReport(SenderReport(ssrc: SSRC(1), ntpTimestamp: NTPTimestamp(rawValue: 5), rtpTimestamp: 6, packetCount: 7, octetCount: 8,
                                       reportBlocks: [ReportBlock(ssrc: SSRC(3), fractionLost: 1, cumulativeLost: 2, extendedHighestSequence: 3,
                                                                  jitter: 4, lastSenderReport: 5, delaySinceLastSenderReport: 6)])),
            .sourceDescription(SourceDescription(ssrc: SSRC(1), cname: "fuzz")),
            .nack(GenericNack(senderSSRC: SSRC(1), mediaSSRC: SSRC(2), lost: [1, 3, 40].map { SequenceNumber($0) })),
            .pictureLossIndication(PictureLossIndication(senderSSRC: SSRC(1), mediaSSRC: SSRC(2))),
            .fullIntraRequest(FullIntraRequest(senderSSRC: SSRC(1), entries: [.init(ssrc: SSRC(2), sequenceNumber: 1)])),
            .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(1), bitrate: 500_000, ssrcs: [SSRC(2)])),
            .goodbye(Goodbye(ssrcs: [SSRC(1)], reason: "x")),
        ]),
        VP8PayloadDescriptor(startOfPartition: true, pictureId: 300, tl0PictureIndex: 4, temporalLayerIndex: 1, keyIndex: 2).serialized() + [0, 1],
    ]
    var parsedRTP = 0, parsedRTCP = 0, parsedVP8 = 0
    for i in 0..<100_000 {
        var input: [UInt8]
        if i % 2 == 0 {
            input = (0..<Int(rng.next() % 80)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Make a good share look like version 2 so the parsers go past the first check.
            if !input.isEmpty, rng.next() % 2 == 0 { input[0] = input[0] & 0x3F | 0x80 }
        } else {
            input = seeds[Int(rng.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let pos = Int(rng.next() % UInt64(input.count))
                switch rng.next() % 3 {
                case 0: input[pos] ^= UInt8(1 << (rng.next() % 8))
                case 1: input[pos] = UInt8(truncatingIfNeeded: rng.next())
                default: input = Array(input.prefix(pos))
                }
                if input.isEmpty { break }
            }
        }
        if let p = try? RTPPacket.parse(input) {
            parsedRTP += 1
            #expect(try RTPPacket.parse(p.serialized()) == p)
        }
        if let packets = try? RTCPPacket.parseCompound(input) {
            parsedRTCP += 1
            // (A compound of only skipped types parses to nothing, and nothing has no wire form.)
            if !packets.isEmpty { #expect(try RTCPPacket.parseCompound(RTCPPacket.compound(packets)) == packets) }
        }
        if let (d, _) = try? VP8PayloadDescriptor.parse(input) {
            parsedVP8 += 1
            let again = try VP8PayloadDescriptor.parse(d.serialized() + [0])
            #expect(again.0 == d)
        }
    }
    // The mutations must actually reach the parsers' success paths.
    #expect(parsedRTP > 5_000 && parsedRTCP > 1_000 && parsedVP8 > 10_000)
}

/// Hostile but well-formed streams into the receive side: random sequence numbers, timestamps,
/// markers, descriptors and arrival times. The buffers must stay bounded and never trap.
@Test func receiveBuffersSurviveRandomStreams() {
    var rng = SplitMixRandom(seed: 0xB0FF_E125)
    var video = VideoReceiveStream(configuration: .init(localSSRC: SSRC(1), remoteSSRC: SSRC(2), cname: "f"))
    var audio = AudioReceiveStream(localSSRC: SSRC(1), remoteSSRC: SSRC(2), cname: "f")
    var now = TransportTime.zero
    var seq: UInt16 = 0
    var ts: UInt32 = 0
    var framesOut = 0
    for _ in 0..<20_000 {
        now = now + .microseconds(Int64(rng.next() % 20_000))
        // Mostly a plausible stream, sometimes wild jumps.
        switch rng.next() % 10 {
        case 0: seq = UInt16(truncatingIfNeeded: rng.next())
        case 1: seq &-= UInt16(rng.next() % 50)
        default: seq &+= UInt16(1 + rng.next() % 3)
        }
        ts &+= rng.next() % 4 == 0 ? UInt32(truncatingIfNeeded: rng.next()) : UInt32(rng.next() % 2) * 960
        let descriptor = VP8PayloadDescriptor(startOfPartition: rng.next() % 3 == 0, partitionIndex: UInt8(rng.next() % 2),
                                              pictureId: UInt16(rng.next() % 0x8000)).serialized()
        let body = (0..<Int(1 + rng.next() % 30)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let packet = RTPPacket(marker: rng.next() % 3 == 0, payloadType: PayloadType(rawValue: 96)!, sequenceNumber: SequenceNumber(seq),
                               timestamp: ts, ssrc: SSRC(2), payload: descriptor + body)
        video.receive(packet, size: 100, now: now)
        audio.receive(packet, size: 100, now: now)
        framesOut += video.poll(now: now).frames.count
        _ = audio.pull(now: now)
        #expect(video.buffer.bufferedPackets <= 1_000)
        #expect(audio.buffer.bufferedFrames <= 200)
    }
    #expect(framesOut > 0)
}
