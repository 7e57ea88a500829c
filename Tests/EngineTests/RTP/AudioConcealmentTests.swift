import EngineTestSupport
import Testing
@testable import EngineMedia
@testable import EngineRTP
@testable import EngineTransport

/// A 440 Hz tone through Opus, RTP and the audio jitter buffer over a jittery, reordering,
/// duplicating link, with one single lost packet (FEC territory) and a 200 ms hole.
@Test func audioKeepsFlowingThroughA200msGapAndTheToneComesBack() throws {
    var tone = ToneSource(frequency: 440)
    let encoder = try OpusEncoder(bitrate: 32_000, expectedLossPercent: 10)
    let decoder = try OpusDecoder()
    var sender = AudioSendStream(ssrc: SSRC(0xA0D1_0000), payloadType: PayloadType(rawValue: 111)!, cname: "a",
                                 initialSequenceNumber: 65_500, initialTimestamp: UInt32.max - 20_000)
    var receiver = AudioReceiveStream(localSSRC: SSRC(1), remoteSSRC: SSRC(0xA0D1_0000), cname: "b")
    var link = EmulatedLink<[UInt8]>(LinkConditions(delay: .milliseconds(30), jitter: .milliseconds(8), loss: 0, reorder: 0.05,
                                                    reorderExtra: .milliseconds(15), duplicate: 0.05), seed: 99)
    let frame = Duration.milliseconds(20)
    let gap = 100..<110            // frames 2.00 s ... 2.20 s never arrive
    let singleLoss = 60            // one lost packet: FEC from the next one
    var output: [(pull: AudioJitterBuffer.Pull, frame: AudioFrame)] = []
    var pulls = 0
    let total = 200                // 4 s
    // Send frame i at i*20 ms; pull once per 20 ms from t = 0 (plus a 5 ms phase offset).
    var now = TransportTime.zero
    var sent = 0
    let end = TransportTime.zero + frame * (total + 10)
    while now < end {
        if sent < total, now >= TransportTime.zero + frame * sent {
            let (packet, isDTX) = try encoder.encode(tone.nextFrame())
            if let rtp = sender.send(opusPacket: packet, isDTX: isDTX, now: now), !gap.contains(sent), sent != singleLoss {
                link.send(rtp, now: now)
            }
            sent += 1
        }
        for datagram in link.deliver(now: now) { receiver.receive(try RTPPacket.parse(datagram), size: datagram.count, now: now) }
        if now >= TransportTime.zero + frame * pulls + .milliseconds(5) {
            let instruction = receiver.pull(now: now)
            let pcm: AudioFrame
            switch instruction {
            case .packet(let p): pcm = try decoder.decode(p)
            case .recoverFromNext(let p): pcm = try decoder.recover(from: p)
            case .conceal: pcm = try decoder.conceal()
            case .silence: pcm = .silence
            }
            output.append((instruction, pcm))
            pulls += 1
        }
        now = now + .milliseconds(1)
    }
    let b = receiver.buffer
    print("[rtp-audio] pulls \(pulls): played \(b.packetsPlayed), FEC-recovered \(b.framesRecovered), concealed \(b.framesConcealed), "
          + "duplicates \(b.duplicates), late \(b.latePackets), target delay \(b.targetDelay)")
    // One 20 ms frame per pull, without a break.
    #expect(output.count == pulls)
    #expect(output.allSatisfy { $0.frame.samples.count == 960 })
    // The hole was concealed frame by frame (10 frames), the single loss recovered from FEC.
    #expect(b.framesConcealed >= gap.count)
    #expect(b.framesRecovered >= 1)
    #expect(b.duplicates > 0)
    let started = try #require(output.firstIndex { if case .packet = $0.pull { true } else { false } })
    #expect(started <= 4, "playout starts within the 40-120 ms target")
    // No silence once playing: every pull after the start decoded, recovered or concealed.
    #expect(output[started...].allSatisfy { $0.pull != .silence })
    // The tone is there before the gap and comes back after it.
    func tail(_ range: Range<Int>) -> [Int16] { range.flatMap { output[$0].frame.samples } }
    let before = AudioAnalysis.dominantFrequency(tail(70..<95))
    let after = AudioAnalysis.dominantFrequency(tail((pulls - 40)..<(pulls - 10)))
    #expect(abs((before ?? 0) - 440) < 5)
    #expect(abs((after ?? 0) - 440) < 5)
    #expect(AudioAnalysis.rmsLevel(tail((pulls - 40)..<(pulls - 10))) > 0.1)
}

@Test func theAudioBufferPlaysInTimestampOrderAndRecoversFromTheNextPacket() {
    var buffer = AudioJitterBuffer()
    func packet(_ n: UInt32) -> RTPPacket {
        RTPPacket(payloadType: PayloadType(rawValue: 111)!, sequenceNumber: SequenceNumber(UInt16(n)), timestamp: n * 960,
                  ssrc: SSRC(1), payload: [UInt8(n)])
    }
    let t0 = TransportTime.zero
    // Arrivals (ms): 0, 2 (early), 1 (reordered), 1 again (duplicate), 4 (3 is lost), 5; nothing after.
    let arrivals: [(Int, UInt32)] = [(0, 0), (40, 2), (41, 1), (42, 1), (80, 4), (100, 5)]
    var pulls: [AudioJitterBuffer.Pull] = []
    for ms in 0..<220 {
        for (at, n) in arrivals where at == ms { buffer.insert(packet(n), now: t0 + .milliseconds(ms)) }
        if ms % 20 == 5 { pulls.append(buffer.pull(now: t0 + .milliseconds(ms))) }
    }
    // 5, 25 ms: still buffering (40 ms target); then one slot per pull in timestamp order.
    #expect(pulls == [.silence, .silence, .packet([0]), .packet([1]), .packet([2]), .recoverFromNext([4]), .packet([4]),
                      .packet([5]), .conceal, .conceal, .conceal])
    #expect(buffer.duplicates == 1)
    buffer.insert(packet(1), now: t0 + .milliseconds(300))   // long played
    #expect(buffer.latePackets == 1)
}

@Test func theAudioDelayGrowsWithJitterWithinItsBounds() {
    func settle(jitterMs: Int) -> Duration {
        var buffer = AudioJitterBuffer()
        var rng = SplitMixRandom(seed: UInt64(jitterMs))
        for n in 0..<300 {
            let arrival = n * 20 + Int(rng.next() % UInt64(jitterMs + 1))
            buffer.insert(RTPPacket(payloadType: PayloadType(rawValue: 111)!, sequenceNumber: SequenceNumber(UInt16(n)),
                                    timestamp: UInt32(n * 960), ssrc: SSRC(1), payload: [1]),
                          now: TransportTime.zero + .milliseconds(arrival))
        }
        return buffer.targetDelay
    }
    #expect(settle(jitterMs: 0) == .milliseconds(40))
    let medium = settle(jitterMs: 40)
    #expect(medium > .milliseconds(40) && medium < .milliseconds(120))
    #expect(settle(jitterMs: 400) == .milliseconds(120))
}

@Test func aTimestampJumpRestartsPlayoutInsteadOfStalling() {
    var buffer = AudioJitterBuffer()
    func packet(_ n: UInt32, ts: UInt32) -> RTPPacket {
        RTPPacket(payloadType: PayloadType(rawValue: 111)!, sequenceNumber: SequenceNumber(UInt16(n)), timestamp: ts, ssrc: SSRC(1),
                  payload: [UInt8(n)])
    }
    var pulls: [AudioJitterBuffer.Pull] = []
    for ms in 0..<1_000 {
        // 25 packets in order, then the sender's clock jumps by an hour's worth of ticks.
        if ms % 20 == 0 {
            let n = UInt32(ms / 20)
            buffer.insert(packet(n, ts: n < 25 ? n * 960 : 172_800_000 + n * 960), now: TransportTime.zero + .milliseconds(ms))
        }
        if ms % 20 == 10 { pulls.append(buffer.pull(now: TransportTime.zero + .milliseconds(ms))) }
    }
    #expect(buffer.resyncs == 1)
    // After the jump, packets play again (after a short re-buffering), instead of an hour of concealment.
    #expect(pulls.suffix(10).allSatisfy { if case .packet = $0 { true } else { false } })
}

/// 10 s of tone over a link with random loss: every 20 ms the player gets a frame, single
/// losses come back through Opus FEC, and the tone survives.
@Test(arguments: [0.05, 0.15])
func audioUnderRandomLossIsRecoveredOrConcealed(loss: Double) throws {
    var tone = ToneSource(frequency: 660)
    let encoder = try OpusEncoder(bitrate: 32_000, expectedLossPercent: Int(loss * 100))
    let decoder = try OpusDecoder()
    var sender = AudioSendStream(ssrc: SSRC(77), payloadType: PayloadType(rawValue: 111)!, cname: "a")
    var receiver = AudioReceiveStream(localSSRC: SSRC(1), remoteSSRC: SSRC(77), cname: "b")
    var link = EmulatedLink<[UInt8]>(LinkConditions(delay: .milliseconds(40), jitter: .milliseconds(10), loss: loss, reorder: 0.02,
                                                    duplicate: 0.01), seed: UInt64(loss * 1_000))
    let frames = 500
    var out: [AudioFrame] = []
    var pulls = 0
    for ms in 0..<(frames * 20 + 200) {
        let now = TransportTime.zero + .milliseconds(ms)
        if ms % 20 == 0, ms / 20 < frames {
            let (packet, isDTX) = try encoder.encode(tone.nextFrame())
            if let rtp = sender.send(opusPacket: packet, isDTX: isDTX, now: now) { link.send(rtp, now: now) }
        }
        for d in link.deliver(now: now) { receiver.receive(try RTPPacket.parse(d), size: d.count, now: now) }
        if ms % 20 == 7 {
            pulls += 1
            switch receiver.pull(now: now) {
            case .packet(let p): out.append(try decoder.decode(p))
            case .recoverFromNext(let p): out.append(try decoder.recover(from: p))
            case .conceal: out.append(try decoder.conceal())
            case .silence: out.append(.silence)
            }
        }
    }
    let b = receiver.buffer
    print("[rtp-audio] \(Int(loss * 100))% loss: \(pulls) pulls, played \(b.packetsPlayed), FEC \(b.framesRecovered), "
          + "concealed \(b.framesConcealed), lost on the link \(link.dropped)")
    #expect(out.count == pulls)
    #expect(b.framesRecovered > 0)
    #expect(b.packetsPlayed + b.framesRecovered >= frames - link.dropped)
    let lastSecond = out[(out.count - 60)..<(out.count - 10)].flatMap(\.samples)
    #expect(abs((AudioAnalysis.dominantFrequency(lastSecond) ?? 0) - 660) < 5)
}

/// A sender that goes quiet (muted: DTX, nothing sent for seconds) is concealed for `maxConcealedRun` slots, then
/// played as silence without running the decoder; its next packets play again.
@Test func aLongGapIsConcealedFor500MsThenSilence() {
    var buffer = AudioJitterBuffer()
    var now = TransportTime.zero
    func packet(_ i: Int) -> RTPPacket {
        RTPPacket(payloadType: PayloadType(rawValue: 111)!, sequenceNumber: SequenceNumber(UInt16(i)), timestamp: UInt32(i * 960),
                  ssrc: SSRC(1), payload: [0xfc, UInt8(i & 0xff)])
    }
    var pulls: [AudioJitterBuffer.Pull] = []
    // 1 s of packets, 3 s of nothing (DTX), 1 s of packets again: one pull per 20 ms throughout.
    for slot in 0..<250 {
        if slot < 50 || slot >= 200 { buffer.insert(packet(slot), now: now) }
        now = now + .milliseconds(20)
        pulls.append(buffer.pull(now: now))
    }
    func isConceal(_ p: AudioJitterBuffer.Pull) -> Bool { p == .conceal }
    let firstGap = pulls.firstIndex(where: isConceal)!
    let gap = pulls[firstGap...].prefix { $0 == .conceal || $0 == .silence }
    #expect(gap.count > 120)
    #expect(gap.filter(isConceal).count == AudioJitterBuffer.maxConcealedRun)
    #expect(gap.dropFirst(AudioJitterBuffer.maxConcealedRun).allSatisfy { $0 == .silence })
    #expect(buffer.framesSilencedInGaps == gap.count - AudioJitterBuffer.maxConcealedRun)
    // Playing again after the gap.
    #expect(pulls.suffix(30).allSatisfy { if case .packet = $0 { true } else { false } })
}
