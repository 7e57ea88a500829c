import Testing
@testable import EngineTransport
import EngineTestSupport

/// ICE restart (RFC 8445 §9) on the agent: a new generation with new credentials finds a path again (here: a new
/// relayed address after the old allocation was lost), the old selection carries media until the new one is made,
/// and nothing of the old generation's peer state survives it.
@Suite struct IceRestartTests {
    func connectedThroughTheRelay(seed: UInt64) throws -> IcePairHarness {
        let h = IcePairHarness(seed: seed)
        h.relayedA = TransportAddress("203.0.113.1:40000")!
        h.onlyRelayPasses = true
        h.start()
        #expect(h.run(for: .seconds(10), until: { $0.bothConnected }))
        #expect(h.a.selected?.localBase == h.relayedA)
        return h
    }

    /// Both ends restart and exchange credentials and candidates, as a re-offer and its answer carry them.
    func restartBoth(_ h: IcePairHarness, relayed: TransportAddress?, seed: UInt64) {
        var rng = SplitMixRandom(seed: seed)
        h.feed("A", .command(.restart(local: .random(using: &rng), relayed: relayed, mapped: nil)))
        h.feed("B", .command(.restart(local: .random(using: &rng), relayed: nil, mapped: nil)))
        h.feed("A", .command(.setRemoteCredentials(h.b.localCredentials)))
        h.feed("B", .command(.setRemoteCredentials(h.a.localCredentials)))
        for c in h.a.localCandidates where c.kind != .relay { h.feed("B", .command(.addRemoteCandidate(c))) }
        for c in h.b.localCandidates { h.feed("A", .command(.addRemoteCandidate(c))) }
    }

    @Test func aNewRelayedAddressIsFoundByANewGeneration() throws {
        let h = try connectedThroughTheRelay(seed: 31)
        let old = try #require(h.a.selected)
        let oldUfrag = h.a.localCredentials.ufrag
        // The allocation is lost: only the new relayed address gets through from now on.
        let newRelay = TransportAddress("203.0.113.1:40002")!
        h.relayedA = newRelay
        restartBoth(h, relayed: newRelay, seed: 32)
        #expect(h.a.localCredentials.ufrag != oldUfrag)
        #expect(h.a.restarts == 1 && h.b.restarts == 1)
        // Until the new pair is selected, media still has the old one, and the connection stays connected.
        #expect(h.a.selected == old)
        #expect(h.a.state == .connected && h.b.state == .connected)
        #expect(!h.a.localCandidates.contains { $0.kind == .relay && $0.port == 40000 })
        let restartedAt = h.now
        #expect(h.run(for: .seconds(10), until: { $0.bothConnected && $0.a.selected?.localBase == newRelay }))
        #expect(h.now - restartedAt < .seconds(2), "a new generation connects within a few check intervals")
        #expect(h.b.selected?.remoteAddress == newRelay)
    }

    @Test func checksOfTheOldGenerationAreNotAnswered() throws {
        let h = try connectedThroughTheRelay(seed: 33)
        let oldRemote = h.b.localCredentials
        var rng = SplitMixRandom(seed: 34)
        h.feed("A", .command(.restart(local: .random(using: &rng), relayed: h.relayedA, mapped: nil)))
        #expect(h.a.remoteCredentials == nil && h.a.remoteCandidateCount == 0 && h.a.pairCount == 0)
        #expect(h.a.transactionCount == 0)
        // B still checks with A's old ufrag (consent): answered with 401, never believed as a new generation.
        #expect(h.a.remoteCredentials != oldRemote)
        h.run(for: .seconds(6), until: { _ in false })
        #expect(h.a.pairCount == 0, "nothing pairs before the peer's new credentials arrive")
    }

    @Test func aRestartThatFindsNothingFailsAtTheCheckingTimeout() throws {
        let h = try connectedThroughTheRelay(seed: 35)
        var rng = SplitMixRandom(seed: 36)
        let started = h.now
        h.feed("A", .command(.restart(local: .random(using: &rng), relayed: h.relayedA, mapped: nil)))
        #expect(h.run(for: .seconds(60), until: { $0.a.state == .failed }))
        #expect(h.now - started >= h.a.config.checkingTimeout)
    }
}
