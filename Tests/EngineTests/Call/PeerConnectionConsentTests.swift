import Testing
@testable import EngineTransport

/// RFC 7675 §5.1 at the peer-connection level: once consent is lost "the agent MUST cease transmission on that
/// 5-tuple", so nothing at all leaves on the pair afterwards (media, RTCP reports and feedback, NACK
/// retransmissions, DTLS), on the offering (controlling) and on the answering (controlled) side.
@Suite struct PeerConnectionConsentTests {
    @Test(.timeLimit(.minutes(1)))
    func afterConsentIsLostThePairCarriesNoPacketFromEitherSide() throws {
        let h = try PeerPairHarness(seed: 29)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        let sender = try VirtualSender()
        // Media with some loss, so NACKs and retransmissions are part of the traffic when the path dies.
        h.network.configure { $0.loss = 0.05 }
        h.run(for: .seconds(2), tick: { now in _ = try? sender.tick(h, at: now) })
        #expect(h.b.stats(now: h.now).nacksSent > 0)
        let beforeCut = ["A": h.statesAtSend["A"]!.count, "B": h.statesAtSend["B"]!.count]
        h.network.configure { $0.cut = true }
        // A's encoder keeps offering media every 20 ms; both sides' timers keep running for 40 s.
        h.run(for: .seconds(40), tick: { now in _ = try? sender.tick(h, at: now) })
        for name in ["A", "B"] {
            #expect(h.endpoint(name).state == .failed, "\(name) is \(h.endpoint(name).state)")
            let afterCut = h.statesAtSend[name]!.dropFirst(beforeCut[name]!)
            #expect(afterCut.contains { $0.stateAfter != .failed }, "\(name) went on sending until consent expired")
            let afterFailure = afterCut.filter { $0.stateAfter == .failed }
            #expect(afterFailure.isEmpty, "\(name) sent \(afterFailure.count) datagrams after consent was lost")
        }
    }
}
