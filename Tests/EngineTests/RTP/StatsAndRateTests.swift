import Testing
@testable import EngineRTP
@testable import EngineTransport

private func at(_ ms: Int) -> TransportTime { TransportTime.zero + .milliseconds(ms) }
private let pt96 = PayloadType(rawValue: 96)!

private func packet(seq: UInt16, ts: UInt32, ssrc: SSRC = SSRC(7)) -> RTPPacket {
    RTPPacket(payloadType: pt96, sequenceNumber: SequenceNumber(seq), timestamp: ts, ssrc: ssrc, payload: [0])
}

@Test func receiveStatisticsCountLossAcrossTheWrapAndReportFractionPerInterval() throws {
    var stats = ReceiveStatistics(ssrc: SSRC(7), clockRate: 90_000)
    // 65530 ... 65535, 0 ... 13 (20 expected), 5 of them lost.
    var seq: UInt16 = 65_530
    let lost: Set<UInt16> = [65_533, 0, 1, 7, 12]
    for i in 0..<20 {
        if !lost.contains(seq) { stats.record(packet(seq: seq, ts: UInt32(i * 3_000)), size: 100, now: at(i * 33)) }
        seq &+= 1
    }
    #expect(stats.expected == 20 && stats.cumulativeLost == 5)
    let maybeBlock = stats.makeReportBlock(now: at(700))
    let block = try #require(maybeBlock)
    #expect(block.fractionLost == UInt8(5 * 256 / 20))
    #expect(block.cumulativeLost == 5)
    #expect(block.extendedHighestSequence == 1 << 16 | 13)     // one wrap (cycle count 1), highest 13
    // The next interval has no loss.
    for i in 20..<30 { stats.record(packet(seq: seq, ts: UInt32(i * 3_000)), size: 100, now: at(i * 33)); seq &+= 1 }
    let next = stats.makeReportBlock(now: at(1_000))
    #expect(next?.fractionLost == 0)
}

@Test func jitterFollowsRFC3550A8() {
    // Packets 20 ms apart in media time; arrivals alternate 0 and +10 ms of extra delay, so every
    // |D| is 10 ms = 900 ticks; J converges to 900.
    var stats = ReceiveStatistics(ssrc: SSRC(7), clockRate: 90_000)
    for i in 0..<400 {
        stats.record(packet(seq: UInt16(i), ts: UInt32(i * 1_800)), size: 10, now: at(i * 20 + (i % 2) * 10))
    }
    #expect(abs(stats.jitter - 900) < 1)
    #expect(abs(stats.jitterSeconds - 0.010) < 0.0001)
    // Constant transit: no jitter.
    var steady = ReceiveStatistics(ssrc: SSRC(7), clockRate: 90_000)
    for i in 0..<50 { steady.record(packet(seq: UInt16(i), ts: UInt32(i * 1_800)), size: 10, now: at(40 + i * 20)) }
    #expect(steady.jitter < 0.001)
}

@Test func roundTripTimeComesFromSenderAndReceiverReports() throws {
    // Sender → SR at 1 000 ms, reaches the receiver 30 ms later; the receiver reports 250 ms after
    // that; the RR reaches the sender 30 ms later: RTT = 60 ms (RFC 3550 §6.4.1).
    let senderSSRC = SSRC(0x5E), receiverSSRC = SSRC(0x4E)
    var sender = VideoSendStream(configuration: .init(ssrc: senderSSRC, payloadType: pt96, cname: "s"))
    var receiver = VideoReceiveStream(configuration: .init(localSSRC: receiverSSRC, remoteSSRC: senderSSRC, cname: "r"))
    let frame = EncodedVideoFrame(data: [0x10, 1, 2, 3], isKeyframe: true, timestamp: 0.9)
    for bytes in sender.send(frame, now: at(900)) { receiver.receive(try RTPPacket.parse(bytes), size: bytes.count, now: at(930)) }
    _ = sender.pollReport(now: at(0))            // schedules the first report
    let maybeSR = sender.pollReport(now: at(1_000))
    let sr = try #require(maybeSR)
    let parsed = try RTCPPacket.parseCompound(sr)
    guard case .senderReport(let report) = parsed[0], case .sourceDescription(let sdes) = parsed[1] else {
        Issue.record("SR + SDES expected"); return
    }
    #expect(report.packetCount == 1 && report.octetCount == 4 + 4)   // descriptor + data
    #expect(report.rtpTimestamp == 90_000)                           // 0.9 s + 100 ms at 90 kHz
    #expect(sdes.chunks.first?.cname == "s")
    receiver.handleRTCP(parsed, now: at(1_030))
    var rr: [UInt8]?
    var t = 1_030
    while rr == nil, t < 4_000 {
        rr = receiver.poll(now: at(t)).rtcp.first { (try? RTCPPacket.parseCompound($0))?.contains { if case .receiverReport(let r) = $0 { !r.reportBlocks.isEmpty } else { false } } ?? false }
        if rr == nil { t += 1 }
    }
    let rrBytes = try #require(rr)
    _ = sender.handleRTCP(try RTCPPacket.parseCompound(rrBytes), now: at(t + 30))
    let rtt = try #require(sender.statistics.roundTripTime)
    #expect(abs(rtt / .milliseconds(1) - 60) < 0.1)
}

@Test func theSenderAnswersNackPliAndRemb() throws {
    let me = SSRC(0x5E), peer = SSRC(0x4E)
    var sender = VideoSendStream(configuration: .init(ssrc: me, payloadType: pt96, cname: "s"))
    let sent = sender.send(EncodedVideoFrame(data: [UInt8](repeating: 0x11, count: 3_000), isKeyframe: false, timestamp: 0), now: at(0))
    #expect(sent.count == 3)
    let seqs = try sent.map { try RTPPacket.parse($0).sequenceNumber }
    // NACK for the second packet and for one never sent; for another SSRC: ignored.
    let nack = RTCPPacket.nack(GenericNack(senderSSRC: peer, mediaSSRC: me, lost: [seqs[1], SequenceNumber(999)]))
    let other = RTCPPacket.nack(GenericNack(senderSSRC: peer, mediaSSRC: SSRC(1), lost: [seqs[0]]))
    #expect(sender.handleRTCP([nack, other], now: at(50)) == [sent[1]])
    // Two PLIs and a FIR in a burst: one keyframe.
    _ = sender.handleRTCP([.pictureLossIndication(PictureLossIndication(senderSSRC: peer, mediaSSRC: me))], now: at(60))
    _ = sender.handleRTCP([.pictureLossIndication(PictureLossIndication(senderSSRC: peer, mediaSSRC: me)),
                           .fullIntraRequest(FullIntraRequest(senderSSRC: peer, entries: [.init(ssrc: me, sequenceNumber: 1)]))], now: at(70))
    do { let v = sender.takeKeyframeRequest(now: at(80)); #expect(v) }
    do { let v = sender.takeKeyframeRequest(now: at(81)); #expect(!v) }
    // REMB caps the target.
    #expect(sender.targetBitrate == 300_000)
    _ = sender.handleRTCP([.receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: peer, bitrate: 120_000, ssrcs: [me]))], now: at(90))
    #expect(sender.targetBitrate == 120_000)
}

@Test(arguments: [
    // (fraction lost /256, expected estimate after one report from 300 kb/s)
    (UInt8(0), 315_000), (UInt8(5), 300_000 * 105 / 100), (UInt8(6), 300_000), (UInt8(25), 300_000),
    (UInt8(26), 255_000), (UInt8(255), 255_000),   // 25/256 = 9.8 % holds, 26/256 = 10.2 % decreases
])
func theBitrateFollowsLossThresholds(fraction: UInt8, expected: Int) {
    var c = TargetBitrateController(initial: 300_000, minimum: 50_000, maximum: 1_000_000)
    c.onReportBlock(fractionLost: fraction, now: at(0))
    #expect(c.estimate == expected, "fraction \(fraction)/256")
}

@Test func theBitrateIsCappedByREMBAndBoundedAndPaced() {
    var c = TargetBitrateController(initial: 300_000, minimum: 50_000, maximum: 400_000)
    for i in 0..<20 { c.onReportBlock(fractionLost: 0, now: at(i * 1_000)) }
    #expect(c.target == 400_000)                      // capped by maximum
    c.onREMB(bitrate: 200_000)
    #expect(c.target == 200_000 && c.estimate == 200_000)
    c.onReportBlock(fractionLost: 0, now: at(30_000))
    #expect(c.target == 200_000)                      // no growth past the REMB cap
    c.onReportBlock(fractionLost: 128, now: at(30_100))
    #expect(c.estimate == 200_000)                    // within minInterval: ignored
    for i in 0..<40 { c.onReportBlock(fractionLost: 128, now: at(40_000 + i * 1_000)) }
    #expect(c.target == 50_000)                       // floor
}

@Test func reportsAreSpacedHalfToOneAndAHalfIntervalsDeterministically() {
    func times(seed: UInt64) -> [Int] {
        var s = ReportScheduler(interval: .seconds(1), seed: seed)
        var out: [Int] = []
        for ms in 0..<20_000 where s.due(now: at(ms)) { out.append(ms) }
        return out
    }
    let a = times(seed: 1)
    #expect(a == times(seed: 1))
    #expect(a != times(seed: 2))
    #expect(a.first == 500)
    for (x, y) in zip(a, a.dropFirst()) { #expect((500...1_500).contains(y - x)) }
    #expect((13...27).contains(a.count))
}

@Test func receiverOutputsNackAndPliInACompoundLedByAReceiverReport() throws {
    let me = SSRC(0x4E), peer = SSRC(0x5E)
    var receiver = VideoReceiveStream(configuration: .init(localSSRC: me, remoteSSRC: peer, cname: "r"))
    var packetizer = VP8Packetizer(maxPayloadSize: 8)
    // A delta frame first (joined mid-stream), with its middle packet missing.
    let payloads = packetizer.packetize([0x11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    for (i, p) in payloads.enumerated() where i != 1 {
        receiver.receive(RTPPacket(marker: i == 2, payloadType: pt96, sequenceNumber: SequenceNumber(UInt16(10 + i)), timestamp: 0,
                                   ssrc: peer, payload: p), size: 20, now: at(0))
    }
    // Polled once the NACK's reorder tolerance (10 ms) has passed: the gap is then loss, asked for with the PLI.
    let out = receiver.poll(now: at(10))
    #expect(out.frames.isEmpty)
    let compound = try RTCPPacket.parseCompound(try #require(out.rtcp.first))
    #expect(compound.count == 4)
    guard case .receiverReport(let rr) = compound[0], case .sourceDescription = compound[1],
          case .nack(let nack) = compound[2], case .pictureLossIndication(let pli) = compound[3] else {
        Issue.record("RR, SDES, NACK, PLI expected: \(compound)"); return
    }
    #expect(rr.ssrc == me && rr.reportBlocks.isEmpty)
    #expect(nack.mediaSSRC == peer && nack.lostSequenceNumbers == [SequenceNumber(11)])
    #expect(pli.senderSSRC == me && pli.mediaSSRC == peer)
    #expect(receiver.nextDeadline() != nil)
}
