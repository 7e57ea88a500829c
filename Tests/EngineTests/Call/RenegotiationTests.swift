import Testing
import EngineTestSupport
@testable import Engine

/// Renegotiation on a connected pair (W3C transceivers over JSEP, RFC 8829 §5.2.2 and §5.3.2): sections come and go
/// on the same transport while the media of the sections that stay goes on.
@Suite struct RenegotiationTests {
    /// A offers again with whatever `change` did to its transceivers; B answers on its running connection.
    func renegotiate(_ h: PeerPairHarness, _ change: PeerConnection.Command) throws -> (offer: SessionDescription, answer: SessionDescription) {
        h.feed("A", .command(change))
        h.feed("A", .command(.createOffer))
        let offer = try #require(h.description("A"))
        h.feed("B", .command(.applyRemoteOffer(try SessionDescription(parsing: offer.sdpText))))
        let answer = try #require(h.description("B"))
        h.feed("A", .command(.applyRemoteAnswer(try SessionDescription(parsing: answer.sdpText))))
        return (offer, answer)
    }

    /// The longest stretch, in 20 ms ticks, in which B got no new video frame of mid 1 and no audio packet of mid 0.
    final class GapMeter {
        var lastVideo = 0, lastAudio = 0
        var videoAt: TransportTime?, audioAt: TransportTime?
        var longestVideo: Duration = .zero, longestAudio: Duration = .zero

        func tick(_ h: PeerPairHarness, at now: TransportTime) {
            let video = h.count("B") { if case .videoFrame(mid: "1", _) = $0 { true } else { false } }
            let audio = h.count("B") { if case .audio(mid: "0", .packet) = $0 { true } else { false } }
            if video > lastVideo {
                if let t = videoAt { longestVideo = max(longestVideo, now - t) }
                (lastVideo, videoAt) = (video, now)
            }
            if audio > lastAudio {
                if let t = audioAt { longestAudio = max(longestAudio, now - t) }
                (lastAudio, audioAt) = (audio, now)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aSecondVideoSectionComesAndGoesWhileAudioAndTheFirstVideoGoOn() throws {
        let h = try PeerPairHarness(seed: 31)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        let sender = try VirtualSender(), gaps = GapMeter()
        let media: (TransportTime) -> Void = { now in
            _ = try? sender.tick(h, at: now)
            gaps.tick(h, at: now)
        }
        h.run(for: .seconds(1), tick: media)
        let framesBefore = h.mediaAtB.video.framesDecoded
        #expect(framesBefore >= 10)

        // A adds a video section: B accepts it in the direction the offer allows, on the same transport. Its mid is
        // 3: the first offer's mid 2 is the data channels' application section, which stays where it is (RFC 8829
        // §5.2.2) and in BUNDLE; the negotiated media sections (stats) leave it out.
        let added = try renegotiate(h, .addTransceiver(.video, .sendrecv))
        #expect(added.offer.media.map { $0.mid?.rawValue } == ["0", "1", "2", "3"])
        #expect(added.offer.media.map(\.kind) == ["audio", "video", "application", "video"])
        #expect(added.offer.origin.sessionVersion == "1")
        #expect(added.answer.media.count == 4 && !added.answer.media[3].isRejected)
        #expect(added.answer.media[3].direction == .recvonly, "B's video rides mid 1; the new section only receives")
        #expect(added.answer.media[2].kind == "application" && !added.answer.media[2].isRejected)
        #expect(added.answer.bundleGroup?.mids.map(\.rawValue) == ["0", "1", "2", "3"])
        #expect(h.a.stats(now: h.now).sections.map(\.mid) == ["0", "1", "3"])
        #expect(h.b.stats(now: h.now).sections.map(\.mid) == ["0", "1", "3"])
        #expect(h.a.signalingState == .stable && h.b.state == .connected)
        h.run(for: .seconds(1), tick: media)

        // And removes it: port 0 in the offer and the answer, its mid kept, out of the BUNDLE group; the application
        // section stays accepted and bundled.
        let removed = try renegotiate(h, .stopTransceiver(mid: "3"))
        #expect(removed.offer.media[3].isRejected && removed.answer.media[3].isRejected)
        #expect(removed.answer.media[3].mid?.rawValue == "3")
        #expect(!removed.offer.media[2].isRejected && !removed.answer.media[2].isRejected)
        #expect(removed.answer.bundleGroup?.mids.map(\.rawValue) == ["0", "1", "2"])
        #expect(h.b.stats(now: h.now).sections.map(\.mid) == ["0", "1"])
        h.run(for: .seconds(1), tick: media)

        // Neither the audio nor the first video stopped for it.
        print("renegotiation: longest video gap \(gaps.longestVideo), longest audio gap \(gaps.longestAudio) at B")
        #expect(h.mediaAtB.video.framesDecoded >= framesBefore + 25)
        #expect(gaps.longestVideo <= .milliseconds(100), "longest video gap \(gaps.longestVideo)")
        #expect(gaps.longestAudio <= .milliseconds(100), "longest audio gap \(gaps.longestAudio)")
        #expect(h.states("A").last == .connected && h.states("B").last == .connected)
        #expect(h.mediaAtB.video.decodeFailures == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func theAnswererCanOfferAgain() throws {
        let h = try PeerPairHarness(seed: 37)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        // B, which answered, offers an extra audio section; A answers it.
        h.feed("B", .command(.addTransceiver(.audio, .recvonly)))
        h.feed("B", .command(.createOffer))
        let offer = try #require(h.description("B"))
        // Its new section comes after the application section (mid 2) that it answered, which its offer keeps.
        #expect(offer.media.map(\.kind) == ["audio", "video", "application", "audio"])
        #expect(offer.media.map { $0.mid?.rawValue } == ["0", "1", "2", "3"])
        #expect(offer.bundleGroup?.mids.map(\.rawValue) == ["0", "1", "2", "3"])
        // An offer says actpass, subsequent ones too (RFC 5763 §5).
        #expect(offer.media[0].setup == .actpass)
        h.feed("A", .command(.applyRemoteOffer(try SessionDescription(parsing: offer.sdpText))))
        let answer = try #require(h.description("A"))
        // A is the DTLS server (it offered actpass and B answered active): its answer keeps that, passive.
        #expect(answer.media.allSatisfy { $0.isRejected || $0.setup == .passive })
        #expect(answer.media[3].direction == .sendonly || answer.media[3].direction == .inactive)
        #expect(answer.media[2].kind == "application" && !answer.media[2].isRejected && answer.media[2].direction == nil)
        #expect(answer.bundleGroup?.mids.map(\.rawValue) == ["0", "1", "2", "3"])
        h.feed("B", .command(.applyRemoteAnswer(try SessionDescription(parsing: answer.sdpText))))
        #expect(h.b.signalingState == .stable)
        h.run(for: .milliseconds(500))
        #expect(h.a.state == .connected && h.b.state == .connected)
    }
}
