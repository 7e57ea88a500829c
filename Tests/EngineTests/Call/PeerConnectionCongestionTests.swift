import Testing
import EngineTestSupport
@testable import Engine
@testable import EngineRTP

/// Two connections with transport-wide congestion control negotiated (both offer and answer carry `transport-cc` and
/// the transport-wide sequence number): the receiver reports, the sender's estimate follows a bottleneck.
@Suite struct PeerConnectionCongestionTests {
    /// A sends 30 frames a second, each as large as A's video target allows (the encoder's CBR does the same), over
    /// a 600 kbit/s bottleneck with a 300 ms buffer. Nothing but B's transport feedback tells A about the path.
    @Test(.timeLimit(.minutes(1)))
    func theVideoTargetFollowsABottleneckFromTransportFeedback() throws {
        let h = try PeerPairHarness(seed: 31)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        h.network.configure { $0.bitsPerSecond = 600_000; $0.maxQueueDelay = .milliseconds(300) }
        var frames = 0
        var targets: [Int] = []
        h.run(for: .seconds(30), tickInterval: .nanoseconds(33_333_333), tick: { _ in
            let target = h.a.targetVideoBitrate ?? 0
            targets.append(target)
            frames += 1
            let data = [UInt8](repeating: 0x55, count: max(100, target / 30 / 8))
            h.feed("A", .command(.sendVideo(EncodedVideoFrame(data: data, isKeyframe: frames == 1, timestamp: Double(frames) / 30))))
        })
        let a = h.a.stats(now: h.now), b = h.b.stats(now: h.now)
        #expect(b.transportFeedbackSent >= 20 * 25, "\(b)")
        #expect(a.transportFeedbackReceived >= 20 * 25, "\(a)")
        // The last 10 s: the video target (the estimate less the audio's share) sits near the bottleneck, neither
        // stuck at the 300 kbit/s start nor far above what the link carries.
        let late = targets.suffix(300)
        let mean = late.reduce(0, +) / max(late.count, 1)
        #expect(mean >= 400_000 && mean <= 650_000, "mean video target \(mean) over the last 10 s; \(a)")
        // The feedback named A's packets: B saw them all stamped (none dropped by the receiver as unstamped).
        #expect(b.videoPacketsReceived > 0 && a.sendEstimateBitrate != nil)
    }

    /// An encoder that makes at most 600 kbit/s on a path that widens from 1 to 2.5 Mbit/s: A's probes (padding paced
    /// above its estimate, between its frames) carry its estimate to the new capacity, which it could not reach by
    /// itself (AIMD grows to 1.5 × what arrives at most). (B cannot decode these made-up frames; the next test decodes
    /// real ones.)
    @Test(.timeLimit(.minutes(1)))
    func probesFindAWiderPathForAnApplicationLimitedSender() throws {
        let h = try PeerPairHarness(seed: 41)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        h.network.configure { $0.bitsPerSecond = 1_000_000; $0.maxQueueDelay = .milliseconds(300) }
        var frames = 0
        func send(for duration: Duration) {
            h.run(for: duration, tickInterval: .nanoseconds(33_333_333), tick: { _ in
                let target = h.a.targetVideoBitrate ?? 0
                frames += 1
                let data = [UInt8](repeating: 0x55, count: max(100, min(target, 600_000) / 30 / 8))
                h.feed("A", .command(.sendVideo(EncodedVideoFrame(data: data, isKeyframe: frames == 1, timestamp: Double(frames) / 30))))
            })
        }
        send(for: .seconds(15))
        #expect((h.a.stats(now: h.now).sendEstimateBitrate ?? 0) <= 1_150_000, "the 1 Mbit/s path bounds the estimate")
        h.network.configure { $0.bitsPerSecond = 2_500_000 }
        send(for: .seconds(10))
        let a = h.a.stats(now: h.now), b = h.b.stats(now: h.now)
        #expect(a.probesSent >= 3 && a.probesRaisingEstimate >= 1, "\(a)")
        #expect(b.paddingPacketsReceived >= 20, "\(b)")
        #expect(Double(a.sendEstimateBitrate ?? 0) >= 2_500_000 * 0.85, "\(a)")
    }

    /// Real VP8 from the test card with A probing (its estimate starts at 300 kbit/s on an open path, so it probes at
    /// the start and every 2 s): B steps over the padding between frames, decodes every frame that arrived, and never
    /// asks for a keyframe. (Its NACKs are tail-loss checks on paced frames, whose packets come milliseconds apart.)
    @Test(.timeLimit(.minutes(1)))
    func theReceiverStepsOverProbePaddingWithoutLosingAFrame() throws {
        let h = try PeerPairHarness(seed: 43)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        let sender = try VirtualSender()
        h.run(for: .seconds(10), tick: { now in _ = try? sender.tick(h, at: now) })
        let a = h.a.stats(now: h.now), b = h.b.stats(now: h.now)
        let decoded = h.count("B") { if case .videoFrame = $0 { return true } else { return false } }
        #expect(a.probesSent >= 3 && b.paddingPacketsReceived >= 3 * ProbeCluster.minimumPackets, "\(a)\n\(b)")
        #expect(decoded >= 145, "B decoded \(decoded) of 150 frames; \(b)")
        #expect(b.plisSent == 0 && sender.keyframesSent == 1, "\(b)")
    }

    /// Without `transport-cc` in the answer, neither side stamps or reports, and the video rate is the loss/REMB one.
    @Test(.timeLimit(.minutes(1)))
    func withoutTransportCCNothingIsStampedOrReported() throws {
        let h = try PeerPairHarness(seed: 37)
        h.feed("A", .command(.createOffer))
        var offer = try #require(h.description("A"))
        for i in offer.media.indices {
            offer.media[i].rtcpFeedback.removeAll { $0.value == "transport-cc" }
        }
        h.feed("B", .command(.applyRemoteOffer(offer)))
        h.feed("A", .command(.applyRemoteAnswer(try #require(h.description("B")))))
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        let sender = try VirtualSender()
        h.run(for: .seconds(2), tick: { now in _ = try? sender.tick(h, at: now) })
        let a = h.a.stats(now: h.now), b = h.b.stats(now: h.now)
        #expect(b.transportFeedbackSent == 0 && a.transportFeedbackReceived == 0 && a.sendEstimateBitrate == nil)
    }
}
