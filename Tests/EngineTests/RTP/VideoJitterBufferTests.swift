import Testing
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// Frames built from real descriptors and VP8 frame tags (P bit 0 = keyframe), split in `parts` packets.
private struct FrameFactory {
    var seq: UInt64 = 1_000
    var timestamp: UInt32 = 0
    var packetizer = VP8Packetizer(maxPayloadSize: 8)

    mutating func frame(keyframe: Bool, parts: Int) -> [(ExtendedSequenceNumber, RTPPacket)] {
        // Each payload carries 4 descriptor bytes + 4 data bytes.
        var data = [UInt8](repeating: 0xAB, count: 4 * parts)
        data[0] = keyframe ? 0x10 : 0x11
        let payloads = packetizer.packetize(data)
        precondition(payloads.count == parts)
        defer { timestamp &+= 6_000 }
        return payloads.enumerated().map { i, p in
            defer { seq += 1 }
            return (ExtendedSequenceNumber(seq), RTPPacket(marker: i == parts - 1, payloadType: PayloadType(rawValue: 96)!,
                                                            sequenceNumber: ExtendedSequenceNumber(seq).wire, timestamp: timestamp,
                                                            ssrc: SSRC(1), payload: p))
        }
    }
}

private func at(_ ms: Int) -> TransportTime { TransportTime.zero + .milliseconds(ms) }

@Test func completeFramesComeOutInOrderDespiteReorderingAndDuplicates() {
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    let key = f.frame(keyframe: true, parts: 3), d1 = f.frame(keyframe: false, parts: 2), d2 = f.frame(keyframe: false, parts: 1)
    // Arrival order: d1[1], key[2], key[0], d1[1] again (duplicate), d2[0], key[1] (completes the
    // keyframe), key[1] again (now late: its frame is already out), d1[0].
    let order = [d1[1], key[2], key[0], d1[1], d2[0], key[1], key[1], d1[0]]
    var out: [VideoJitterBuffer.Frame] = []
    var results: [VideoJitterBuffer.InsertResult] = []
    for (i, (seq, p)) in order.enumerated() {
        results.append(jb.insert(p, sequence: seq, now: at(i)))
        out += jb.poll(now: at(i)).frames
    }
    #expect(results == [.inserted, .inserted, .inserted, .duplicate, .inserted, .inserted, .late, .inserted])
    #expect(out.map(\.firstSequence.rawValue) == [1_000, 1_003, 1_005])
    #expect(out.map(\.isKeyframe) == [true, false, false])
    #expect(out[0].data.count == 12 && out[0].data[0] == 0x10)
    #expect(out[0].latency == .milliseconds(5 - 1))       // first packet at 1 ms, complete at 5 ms
    do { let v = jb.insert(key[0].1, sequence: key[0].0, now: at(9)); #expect(v == .late) }
    #expect(jb.bufferedPackets == 0)
}

@Test func anIncompleteFrameIsHeldThenDroppedAndDecodingWaitsForAKeyframe() {
    var f = FrameFactory()
    var jb = VideoJitterBuffer()   // 100 ms hold
    let key = f.frame(keyframe: true, parts: 2), d1 = f.frame(keyframe: false, parts: 2)
    let d2 = f.frame(keyframe: false, parts: 1), key2 = f.frame(keyframe: true, parts: 2)
    for (seq, p) in key { jb.insert(p, sequence: seq, now: at(0)) }
    #expect(jb.poll(now: at(0)).frames.count == 1)
    // d1 loses its first packet; d2 is complete but must not be decoded without d1.
    jb.insert(d1[1].1, sequence: d1[1].0, now: at(10))
    jb.insert(d2[0].1, sequence: d2[0].0, now: at(20))
    var r = jb.poll(now: at(20))
    #expect(r.frames.isEmpty && r.events.isEmpty)
    #expect(jb.nextDeadline() == at(110))
    r = jb.poll(now: at(109))
    #expect(r.frames.isEmpty && r.events.isEmpty)
    r = jb.poll(now: at(110))
    #expect(r.frames.isEmpty)
    #expect(r.events == [.frameDropped(firstSequence: d1[0].0, reason: .holdExpired), .keyframeNeeded])
    #expect(jb.waitingForKeyframe)
    // The late retransmission of d1[0] completes nothing any more: still waiting for a keyframe.
    jb.insert(d1[0].1, sequence: d1[0].0, now: at(120))
    #expect(jb.poll(now: at(120)).frames.isEmpty)
    for (seq, p) in key2 { jb.insert(p, sequence: seq, now: at(130)) }
    r = jb.poll(now: at(130))
    #expect(r.frames.map(\.firstSequence) == [key2[0].0])
    #expect(!jb.waitingForKeyframe)
    #expect(jb.framesDropped == 1)
}

@Test func aGivenUpRetransmissionEndsTheHoldAtOnce() {
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    let key = f.frame(keyframe: true, parts: 1), d1 = f.frame(keyframe: false, parts: 3)
    jb.insert(key[0].1, sequence: key[0].0, now: at(0))
    _ = jb.poll(now: at(0))
    jb.insert(d1[0].1, sequence: d1[0].0, now: at(1))
    jb.insert(d1[2].1, sequence: d1[2].0, now: at(2))
    #expect(jb.poll(now: at(3)).events.isEmpty)
    // A packet given up in a *later* frame does not end this frame's wait.
    let d2 = f.frame(keyframe: false, parts: 2)
    jb.insert(d2[0].1, sequence: d2[0].0, now: at(3))
    jb.retransmissionGaveUp(d2[1].0)
    #expect(jb.poll(now: at(3)).events.isEmpty)
    jb.retransmissionGaveUp(d1[1].0)
    do { let v = jb.poll(now: at(4)).events; #expect(v == [.frameDropped(firstSequence: d1[0].0, reason: .retransmissionGaveUp), .keyframeNeeded]) }
}

@Test func theStreamStartsAtTheFirstCompleteKeyframe() {
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    let d0 = f.frame(keyframe: false, parts: 1), key = f.frame(keyframe: true, parts: 2), d1 = f.frame(keyframe: false, parts: 1)
    jb.insert(d0[0].1, sequence: d0[0].0, now: at(0))
    var r = jb.poll(now: at(0))
    #expect(r.frames.isEmpty && r.events == [.keyframeNeeded])   // joined mid-stream: ask for a keyframe
    for (seq, p) in key + d1 { jb.insert(p, sequence: seq, now: at(5)) }
    r = jb.poll(now: at(5))
    #expect(r.frames.map(\.isKeyframe) == [true, false])
}

@Test func theBufferIsBoundedInPacketsAndAge() {
    var f = FrameFactory()
    var config = VideoJitterBuffer.Configuration()
    config.maxPackets = 10
    var jb = VideoJitterBuffer(configuration: config)
    // Deltas only (no keyframe ever): packets pile up while waiting, bounded by count and age.
    for i in 0..<30 {
        for (seq, p) in f.frame(keyframe: false, parts: 2) { jb.insert(p, sequence: seq, now: at(i * 10)) }
        _ = jb.poll(now: at(i * 10))
        #expect(jb.bufferedPackets <= 10)
    }
    _ = jb.poll(now: at(2_000))
    #expect(jb.bufferedPackets == 0)
    // holdTime is clamped to maxHoldTime.
    jb.holdTime = .seconds(5)
    #expect(jb.holdTime == .milliseconds(500))
}

@Test func aSenderThatRestartsItsNumberingIsFollowed() {
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    for (seq, p) in f.frame(keyframe: true, parts: 2) { jb.insert(p, sequence: seq, now: at(0)) }
    #expect(jb.poll(now: at(0)).frames.count == 1)
    // The sender restarts 500 numbers back: 49 late packets are just late, the 50th restarts the buffer.
    f.seq = 500
    var results: [VideoJitterBuffer.InsertResult] = []
    var out: [VideoJitterBuffer.Frame] = []
    for i in 0..<30 {
        for (seq, p) in f.frame(keyframe: i % 10 == 5, parts: 2) {
            results.append(jb.insert(p, sequence: seq, now: at(10 + i)))
        }
        out += jb.poll(now: at(10 + i)).frames
    }
    #expect(results.prefix(49).allSatisfy { $0 == .late })
    #expect(jb.restarts == 1)
    #expect(!out.isEmpty && out.first!.isKeyframe && out.first!.firstSequence.rawValue == 550)
}

/// Found by libFuzzer (media target, a connected pair on a virtual clock): while waiting for a keyframe, the deadline
/// of a lone delta packet was arrival + maxHoldTime, but the purge kept it at exactly that time, so a driver woken at
/// the deadline got the same deadline back and polled in a loop without time moving.
@Test func pollingAtTheDeadlineMovesTheDeadlineWhileWaitingForAKeyframe() {
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    let delta = f.frame(keyframe: false, parts: 1)[0]
    jb.insert(delta.1, sequence: delta.0, now: at(0))
    _ = jb.poll(now: at(0))
    let deadline = jb.nextDeadline()
    #expect(deadline == at(0) + jb.configuration.maxHoldTime)
    if let deadline {
        _ = jb.poll(now: deadline)
        #expect(jb.nextDeadline().map { $0 > deadline } ?? true)
    }
}

@Test func numbersBetweenConsecutivePicturesAreSteppedOverAtOnce() {
    // A sender probing with padding-only packets puts sequence numbers between two frames that never enter the
    // buffer (VideoReceiveStream keeps them out), arrived or lost: the next picture ID shows the gap held no frame.
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    let key = f.frame(keyframe: true, parts: 2)
    f.seq += 7   // seven padding-only packets
    let d1 = f.frame(keyframe: false, parts: 2)
    for (seq, p) in key { jb.insert(p, sequence: seq, now: at(0)) }
    #expect(jb.poll(now: at(0)).frames.count == 1)
    for (seq, p) in d1 { jb.insert(p, sequence: seq, now: at(70)) }
    let out = jb.poll(now: at(70))
    #expect(out.frames.map(\.firstSequence.rawValue) == [1_009], "handed out at once, without waiting for the hold")
    #expect(out.events.isEmpty && !jb.waitingForKeyframe)
}

@Test func aWholeFrameLostInAGapIsNotSteppedOver() {
    // The picture ID is what tells padding from a lost frame: here the gap held frame d1, so d2 (two pictures on)
    // waits for the hold and is then dropped, and decoding waits for a keyframe.
    var f = FrameFactory()
    var jb = VideoJitterBuffer()
    let key = f.frame(keyframe: true, parts: 1)
    f.seq += 2
    _ = f.frame(keyframe: false, parts: 2)   // d1, lost entirely
    let d2 = f.frame(keyframe: false, parts: 1)
    for (seq, p) in key { jb.insert(p, sequence: seq, now: at(0)) }
    #expect(jb.poll(now: at(0)).frames.count == 1)
    for (seq, p) in d2 { jb.insert(p, sequence: seq, now: at(10)) }
    #expect(jb.poll(now: at(10)).frames.isEmpty)
    let later = jb.poll(now: at(200))
    #expect(later.frames.isEmpty && later.events.contains(.keyframeNeeded) && jb.waitingForKeyframe)
}
