import Testing
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

private func at(_ ms: Int) -> TransportTime { TransportTime.zero + .milliseconds(ms) }
private func seqs(_ xs: [ExtendedSequenceNumber]) -> [UInt64] { xs.map(\.rawValue) }

@Test func nackAsksAtOnceRetriesEveryRTTAndGivesUp() {
    var config = NackGenerator.Configuration()
    config.maxRetries = 3
    config.reorderTolerance = .zero   // the retry schedule alone (the tolerance has its own test)
    var nack = NackGenerator(configuration: config)
    let rtt = Duration.milliseconds(100)
    nack.received(ExtendedSequenceNumber(10), now: at(0))
    nack.received(ExtendedSequenceNumber(14), now: at(1))      // 11, 12, 13 missing
    #expect(nack.missingCount == 3)
    var r = nack.poll(now: at(1), rtt: rtt)
    #expect(seqs(r.request) == [11, 12, 13] && r.gaveUp.isEmpty)
    nack.received(ExtendedSequenceNumber(12), now: at(50))     // recovered
    #expect(nack.poll(now: at(100), rtt: rtt).request.isEmpty)  // not yet 1.1 RTT
    #expect(nack.nextDeadline(rtt: rtt) == at(111))
    r = nack.poll(now: at(111), rtt: rtt)
    #expect(seqs(r.request) == [11, 13])
    r = nack.poll(now: at(221), rtt: rtt)
    #expect(seqs(r.request) == [11, 13])
    r = nack.poll(now: at(331), rtt: rtt)
    #expect(r.request.isEmpty && seqs(r.gaveUp) == [11, 13])    // 3 tries spent
    #expect(nack.missingCount == 0)
    #expect(nack.recovered == 1 && nack.givenUp == 2 && nack.requestsSent == 7)
}

/// An RTT measured from reports is not a whole number of nanoseconds × 1.1: the retry deadline must still be a
/// moment at which `poll` retries, or a virtual-clock driver re-polls the same instant forever (found by the rtp bench).
@Test func nackRetryDeadlineIsAMomentPollRetries() throws {
    var config = NackGenerator.Configuration()
    config.reorderTolerance = .zero
    var nack = NackGenerator(configuration: config)
    let rtt = Duration.nanoseconds(45_379_638)                 // × 11 / 10 = 49,917,601.8 ns
    nack.received(ExtendedSequenceNumber(10), now: at(0))
    nack.received(ExtendedSequenceNumber(12), now: at(0))      // 11 missing
    #expect(seqs(nack.poll(now: at(0), rtt: rtt).request) == [11])
    let deadline = try #require(nack.nextDeadline(rtt: rtt))
    #expect(deadline > at(49) && deadline < at(50))
    #expect(seqs(nack.poll(now: deadline, rtt: rtt).request) == [11])
}

/// A packet overtaken on the way (arriving within the reorder tolerance) costs no NACK; a real gap is asked for
/// once the tolerance has passed, and the deadline says when.
@Test func nackWaitsOutReorderingBeforeAsking() throws {
    var nack = NackGenerator()   // reorderTolerance 10 ms
    let rtt = Duration.milliseconds(40)
    nack.received(ExtendedSequenceNumber(10), now: at(0))
    nack.received(ExtendedSequenceNumber(13), now: at(0))      // 11, 12 missing
    #expect(nack.poll(now: at(0), rtt: rtt).request.isEmpty)
    #expect(nack.nextDeadline(rtt: rtt) == at(10))
    nack.received(ExtendedSequenceNumber(11), now: at(4))      // merely reordered
    #expect(nack.poll(now: at(9), rtt: rtt).request.isEmpty)
    #expect(seqs(nack.poll(now: at(10), rtt: rtt).request) == [12])
    #expect(nack.requestsSent == 1)
}

@Test func nackGivesUpByAgeAndRefusesHugeJumps() {
    var nack = NackGenerator()
    nack.received(ExtendedSequenceNumber(1), now: at(0))
    nack.received(ExtendedSequenceNumber(3), now: at(0))
    _ = nack.poll(now: at(0), rtt: .seconds(2))               // long RTT: no retry before the age limit
    let r = nack.poll(now: at(1_001), rtt: .seconds(2))
    #expect(seqs(r.gaveUp) == [2])
    do { let v = nack.received(ExtendedSequenceNumber(3 + 1_000), now: at(1_002)); #expect(v == false) }
    #expect(nack.missingCount == 0)
}

@Test func sendHistoryAnswersNacksWithTheOriginalPacketOncePerRTT() {
    var history = SendHistory(capacity: 8, maxAge: .seconds(1))
    for s in [UInt16(65_534), 65_535, 0, 1] { history.record(SequenceNumber(s), bytes: [UInt8(truncatingIfNeeded: s)], now: at(0)) }
    let rtt = Duration.milliseconds(100)
    do { let v = history.retransmissions(for: [65_535, 0, 7].map { SequenceNumber($0) }, now: at(10), rtt: rtt); #expect(v == [[0xFF], [0x00]]) }
    #expect(history.missed == 1)
    do { let v = history.retransmissions(for: [SequenceNumber(0)], now: at(50), rtt: rtt).isEmpty; #expect(v) }      // within 3/4 RTT
    do { let v = history.retransmissions(for: [SequenceNumber(0)], now: at(90), rtt: rtt); #expect(v == [[0x00]]) }
    do { let v = history.retransmissions(for: [SequenceNumber(1)], now: at(1_001), rtt: rtt).isEmpty; #expect(v) }   // too old
    // Overwritten slots (8 apart) are not confused with the old packet.
    history.record(SequenceNumber(9), bytes: [9], now: at(1_100))
    do { let v = history.retransmissions(for: [SequenceNumber(1)], now: at(1_100), rtt: rtt).isEmpty; #expect(v) }
    do { let v = history.retransmissions(for: [SequenceNumber(9)], now: at(1_100), rtt: rtt); #expect(v == [[9]]) }
}

@Test func retransmissionsStayUnderHalfTheSendSideEstimate() {
    // A collapsed stream: 40 packets of 1200 bytes asked for at once. The budget that follows the last second's
    // sending allows twelve per 100 ms (the 12 KB floor and half the 48 KB sent, spread over ten intervals); with a
    // 500 kbit/s estimate, retransmissions get half of it, 3125 bytes per interval: two packets now, two later.
    func history() -> SendHistory {
        var h = SendHistory(capacity: 64, maxAge: .seconds(1))
        for s in 0..<40 { h.record(SequenceNumber(UInt16(s)), bytes: [UInt8](repeating: 0, count: 1200), now: at(s)) }
        return h
    }
    let lost = (0..<40).map { SequenceNumber(UInt16($0)) }
    var unbounded = history()
    #expect(unbounded.retransmissions(for: lost, now: at(50), rtt: .milliseconds(50)).count == 12)
    var bounded = history()
    #expect(bounded.retransmissions(for: lost, now: at(50), rtt: .milliseconds(50), estimate: 500_000).count == 2)
    #expect(bounded.overBudget == 38)
    #expect(bounded.retransmissions(for: lost, now: at(150), rtt: .milliseconds(50), estimate: 500_000).count == 2)
    // However low the estimate, one full packet per interval may still be repaired.
    var starved = history()
    #expect(starved.retransmissions(for: lost, now: at(50), rtt: .milliseconds(50), estimate: 10_000).count == 1)
}

@Test func keyframeRequestsAreCoalesced() {
    var c = KeyframeRequestCoalescer(window: .milliseconds(250))
    c.pictureLoss(now: at(0))
    c.pictureLoss(now: at(5))
    c.fullIntraRequest(from: SSRC(9), sequenceNumber: 1, now: at(6))
    do { let v = c.takeRequest(now: at(10)); #expect(v) }
    do { let v = c.takeRequest(now: at(11)); #expect(!v) }
    c.pictureLoss(now: at(100))                 // sent before our keyframe arrived: ignored
    c.fullIntraRequest(from: SSRC(9), sequenceNumber: 1, now: at(400))   // a repeat of an answered FIR
    do { let v = c.takeRequest(now: at(400)); #expect(!v) }
    c.pictureLoss(now: at(400))
    do { let v = c.takeRequest(now: at(401)); #expect(v) }
    #expect(c.keyframesForced == 2 && c.requestsReceived == 6)
}

@Test func pliIsRateLimited() {
    var k = KeyframeRequester(minInterval: .milliseconds(500))
    do { let v = k.poll(now: at(0)); #expect(!v) }
    k.request()
    do { let v = k.poll(now: at(0)); #expect(v) }
    k.request()
    do { let v = k.poll(now: at(200)); #expect(!v) }
    #expect(k.nextDeadline() == at(500))
    do { let v = k.poll(now: at(500)); #expect(v) }
    k.request()
    k.satisfied()
    do { let v = k.poll(now: at(2_000)); #expect(!v) }
    #expect(k.sent == 2)
}

@Test func aLostLastPacketIsSuspectedBeforeTheNextFrameArrives() {
    var tail = TailLossDetector()
    // Frame A: 3 packets 2 ms apart, with its marker: nothing suspect.
    for (i, seq) in (100...102).enumerated() {
        tail.received(ExtendedSequenceNumber(UInt64(seq)), marker: seq == 102, timestamp: 1, now: at(i * 2))
    }
    do { let v = tail.poll(now: at(50)); #expect(v == nil) }
    #expect(tail.nextDeadline() == nil)
    // Frame B: 2 packets arrive, the last one (with the marker) never does.
    tail.received(ExtendedSequenceNumber(103), marker: false, timestamp: 2, now: at(67))
    tail.received(ExtendedSequenceNumber(104), marker: false, timestamp: 2, now: at(69))
    // 3 x the smoothed gap (from 5 ms towards the 2 ms seen here), at least 10 ms.
    #expect(tail.timeout >= .milliseconds(10) && tail.timeout <= .milliseconds(15))
    do { let v = tail.poll(now: at(75)); #expect(v == nil) }
    #expect(tail.nextDeadline() == at(69) + tail.timeout)
    do { let v = tail.poll(now: at(69) + tail.timeout); #expect(v == ExtendedSequenceNumber(105)) }
    do { let v = tail.poll(now: at(90)); #expect(v == nil) }   // once per newest packet
    // The NACK generator asks for it like any missing packet, and forgets it when it arrives.
    var nack = NackGenerator()
    nack.received(ExtendedSequenceNumber(104), now: at(69))
    nack.suspect(ExtendedSequenceNumber(105), now: at(79))
    do { let v = nack.poll(now: at(79), rtt: .milliseconds(100)).request; #expect(v == [ExtendedSequenceNumber(105)]) }
    nack.received(ExtendedSequenceNumber(105), now: at(170))
    #expect(nack.missingCount == 0)
}

