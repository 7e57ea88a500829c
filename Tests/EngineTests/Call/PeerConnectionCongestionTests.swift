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
