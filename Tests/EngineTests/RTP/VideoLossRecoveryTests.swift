import EngineTestSupport
import Testing
@testable import Engine
@testable import EngineMedia
@testable import EngineRTP
@testable import EngineTransport

/// Sender (VP8Encoder on a test card, VideoSendStream) and receiver (VideoReceiveStream,
/// VP8Decoder) joined by a lossy emulated network on a virtual clock. The receiver reads the frame
/// counter back from each decoded picture, so "shown", "in order" and "no duplicate" are measured
/// on the pictures themselves.
struct VideoCallSimulation {
    enum Recovery: String { case nackAndPLI = "NACK+PLI", pliOnly = "PLI only", none = "none" }

    struct Result {
        var framesEncoded = 0
        var framesShown = 0
        var freeze: Duration = .zero
        var counters: [UInt32] = []
        var decodeFailures = 0
        var retransmissions = 0
        var plisSent = 0
        var keyframesForced = 0
        var averageLatency: Duration = .zero
        var drops = 0
        var freezes: [(TransportTime, Duration)] = []
        var receiverSnapshot: VideoReceiveStream.Snapshot?
        var senderSnapshot: VideoSendStream.Snapshot?
        var keyframesEncoded = 0
        var rtt: Duration = .zero
        var shownFraction: Double { framesEncoded == 0 ? 0 : Double(framesShown) / Double(framesEncoded) }
    }

    /// Frames of the test card, made once (the card is the slow part in a debug build).
    static let frames: [VideoFrame] = {
        let clock = FakeClock(start: 0, step: 1.0 / 15)
        let card = try! TestCardSource(width: 320, height: 240, frameRate: 15, participant: 2, clock: { clock() })
        return (0..<300).map { _ in try! card.nextFrame()! }
    }()

    static func run(loss: Double, recovery: Recovery, seconds: Int = 20, seed: UInt64,
                    reorder: Double = 0.02, duplicate: Double = 0.01) throws -> Result {
        let frameCount = seconds * 15
        precondition(frameCount <= frames.count)
        // Media goes A → B, feedback B → A, each direction with the same conditions.
        var network = NetworkEmulator<[UInt8]>(LinkConditions(delay: .milliseconds(40), jitter: .milliseconds(10), loss: loss,
                                                              reorder: reorder, duplicate: duplicate), seed: seed)
        let senderSSRC = SSRC(0x1111_1111), receiverSSRC = SSRC(0x2222_2222)
        let sc = VideoSendStream.Configuration(ssrc: senderSSRC, payloadType: PayloadType(rawValue: 96)!, cname: "sender")
        var sender = VideoSendStream(configuration: sc)
        var rc = VideoReceiveStream.Configuration(localSSRC: receiverSSRC, remoteSSRC: senderSSRC, cname: "receiver")
        rc.nack = recovery == .nackAndPLI
        rc.pli = recovery != .none
        var receiver = VideoReceiveStream(configuration: rc)
        let encoder = try VP8Encoder(width: 320, height: 240, bitrateKbps: 300, frameRate: 15)
        let decoder = try VP8Decoder()

        var result = Result()
        var lastShown: TransportTime?
        let frameInterval = Duration.nanoseconds(1_000_000_000 / 15)
        let freezeThreshold = max(frameInterval * 3, frameInterval + .milliseconds(150))
        let end = TransportTime.zero + .seconds(seconds)
        var nextFrame = 0
        var now = TransportTime.zero

        func show(_ frame: VideoJitterBuffer.Frame, at now: TransportTime) {
            do {
                guard let picture = try decoder.decode(frame.data, timestamp: Double(frame.rtpTimestamp) / 90_000) else { return }
                if let code = TestCard.decode(picture) { result.counters.append(code.counter) }
                result.framesShown += 1
                // A freeze is a gap between shown frames longer than max(3 x, + 150 ms) the
                // frame interval; its whole length counts (W3C webrtc-stats totalFreezesDuration).
                let since = lastShown ?? .zero
                if now - since > freezeThreshold { result.freeze += now - since; result.freezes.append((since, now - since)) }
                lastShown = now
            } catch {
                result.decodeFailures += 1
                receiver.decodeFailed()
            }
        }

        while now < end {
            // Sender: one frame per 1/15 s.
            if nextFrame < frameCount, now >= TransportTime.zero + frameInterval * nextFrame {
                let force = sender.takeKeyframeRequest(now: now)
                if let encoded = try encoder.encode(frames[nextFrame], forceKeyframe: force) {
                    result.framesEncoded += 1
                    if encoded.isKeyframe { result.keyframesEncoded += 1 }
                    for p in sender.send(encoded, now: now) { network.aToB.send(p, now: now) }
                }
                nextFrame += 1
            }
            if let sr = sender.pollReport(now: now) { network.aToB.send(sr, now: now) }
            // Receiver.
            for datagram in network.aToB.deliver(now: now) {
                if RTPPacket.looksLikeRTCP(datagram) {
                    receiver.handleRTCP(try RTCPPacket.parseCompound(datagram), now: now)
                } else {
                    receiver.receive(try RTPPacket.parse(datagram), size: datagram.count, now: now)
                }
            }
            // The receiving peer also sends in a real call and learns the RTT from its own reports;
            // here the sender's figure stands in for it.
            receiver.roundTripTime = sender.roundTripTime
            let out = receiver.poll(now: now)
            for f in out.frames { show(f, at: now) }
            for p in out.rtcp { network.bToA.send(p, now: now) }
            // Sender gets feedback.
            for datagram in network.bToA.deliver(now: now) {
                let packets = try RTCPPacket.parseCompound(datagram)
                result.plisSent += packets.filter { if case .pictureLossIndication = $0 { true } else { false } }.count
                for p in sender.handleRTCP(packets, now: now) { network.aToB.send(p, now: now) }
            }
            // Advance to the next thing that can happen.
            let candidates: [TransportTime?] = [
                nextFrame < frameCount ? TransportTime.zero + frameInterval * nextFrame : nil,
                network.nextDelivery, receiver.nextDeadline(), sender.nextDeadline, end,
            ]
            let next = candidates.compactMap { $0 }.min()!
            now = next > now ? next : now + .milliseconds(1)
        }
        if let last = lastShown, end - last > freezeThreshold { result.freeze += end - last }
        if lastShown == nil { result.freeze = .seconds(seconds) }
        result.receiverSnapshot = receiver.snapshot(now: end)
        result.senderSnapshot = sender.snapshot(now: end)
        result.retransmissions = sender.history.retransmitted
        result.keyframesForced = sender.keyframes.keyframesForced
        result.averageLatency = receiver.buffer.averageLatency
        result.drops = receiver.buffer.framesDropped
        result.rtt = sender.roundTripTime
        return result
    }
}

private func ms(_ d: Duration) -> Int { Int(d.nanoseconds / 1_000_000) }

private func report(_ label: String, _ r: VideoCallSimulation.Result) {
    let percent = (r.shownFraction * 1000).rounded() / 10
    var line = "[rtp-sim] \(label): shown \(r.framesShown)/\(r.framesEncoded) = \(percent)%"
    line += ", freeze \(ms(r.freeze)) ms in \(r.freezes.count), retransmissions \(r.retransmissions), PLI \(r.plisSent)"
    line += ", forced keyframes \(r.keyframesForced), decode failures \(r.decodeFailures)"
    line += ", avg packet-to-frame \(ms(r.averageLatency)) ms, unrecoverable \(r.drops), keyframes \(r.keyframesEncoded), RTT \(ms(r.rtt)) ms"
    print(line)
}

/// Pictures come out in capture order, each at most once.
private func expectOrderedUnique(_ counters: [UInt32], _ label: String) {
    for (a, b) in zip(counters, counters.dropFirst()) {
        #expect(b > a, "\(label): frame \(b) shown after \(a)")
    }
}

@Test(arguments: [0.05, 0.15])
func lossRecoveryKeepsVideoFlowing(loss: Double) throws {
    let seed: UInt64 = 0x5EED_0000 + UInt64(loss * 100)
    let on = try VideoCallSimulation.run(loss: loss, recovery: .nackAndPLI, seed: seed)
    let pliOnly = try VideoCallSimulation.run(loss: loss, recovery: .pliOnly, seed: seed)
    let off = try VideoCallSimulation.run(loss: loss, recovery: .none, seed: seed)
    let pct = Int(loss * 100)
    report("\(pct)% loss, NACK+PLI", on)
    report("\(pct)% loss, PLI only", pliOnly)
    report("\(pct)% loss, no recovery", off)
    for (label, r) in [("on", on), ("pli", pliOnly), ("off", off)] { expectOrderedUnique(r.counters, label) }
    #expect(on.decodeFailures == 0)
    // Thresholds, not the measured figures (those are printed): 40 ms one-way delay, 10 ms
    // jitter, the same loss on the feedback path.
    #expect(on.shownFraction > (loss < 0.1 ? 0.95 : 0.90))
    #expect(on.shownFraction > pliOnly.shownFraction + 0.2)
    #expect(pliOnly.shownFraction > off.shownFraction)
    #expect(on.freeze < (loss < 0.1 ? .seconds(3) : off.freeze * 0.6))
    #expect(on.retransmissions > 0)
    // The stats agree with what happened on the link and at the decoder.
    let rs = try #require(on.receiverSnapshot), ss = try #require(on.senderSnapshot)
    #expect(rs.framesDecodable == on.framesShown)
    // RFC 3550 A.3 counts retransmitted and duplicated packets as received, so with plain
    // retransmission (no RTX) the cumulative loss nets out to about zero or below.
    #expect(rs.packetsLost <= 5)
    #expect(rs.nacksSent > 0)
    #expect(abs(rs.framesPerSecond - 15) <= 3)
    #expect(rs.bitsPerSecond > 50_000 && ss.bitsPerSecond > 50_000)
    #expect(ss.retransmissions == on.retransmissions)
    #expect(abs((ss.roundTripTime ?? .zero) / .milliseconds(1) - 90) < 20)   // 2 x (40 ms + jitter 0-10 ms)
    #expect(off.retransmissions == 0)
}

@Test func reorderingAndDuplicatesAloneLoseNothing() throws {
    let r = try VideoCallSimulation.run(loss: 0, recovery: .nackAndPLI, seconds: 8, seed: 42, reorder: 0.1, duplicate: 0.1)
    report("0% loss, 10% reordered, 10% duplicated", r)
    #expect(r.framesShown == r.framesEncoded)
    #expect(r.counters == Array(0..<UInt32(r.framesEncoded)))
    #expect(r.freeze == .zero)
}
