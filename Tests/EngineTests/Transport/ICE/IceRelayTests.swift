import Testing
@testable import EngineTransport

/// Relayed candidates (a TURN allocation's address, `addLocalRelayed`): ranked below every direct candidate, used when
/// nothing direct works, and left for a direct pair that starts working later (the controlling agent keeps checking
/// the pairs that outrank the selected one and nominates one that succeeds; the controlled agent follows).
@Suite struct IceRelayTests {
    static let relayed = TransportAddress("100.64.0.1:49200")!

    @Test func aRelayedCandidateRanksBelowHostAndServerReflexiveOnes() throws {
        let h = IcePairHarness(seed: 5)
        h.relayedA = Self.relayed
        h.start()
        let relay = try #require(h.a.localCandidates.first { $0.kind == .relay })
        let host = try #require(h.a.localCandidates.first { $0.kind == .host })
        #expect(relay.transportAddress == Self.relayed)
        #expect(relay.priority < host.priority)
        #expect(relay.priority < CandidatePriority.candidate(kind: .srflx, localPreference: 0))
        // Signalled as RFC 8839 writes relay candidates: `typ relay` with a related address.
        #expect(relay.sdpValue.contains("typ relay raddr"))
    }

    @Test func withADirectPathTheDirectPairIsChosen() {
        let h = IcePairHarness(seed: 6)
        h.relayedA = Self.relayed
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        #expect(h.a.selected?.local.kind == .host && h.b.selected?.remoteAddress == h.addressA)
    }

    @Test func withOnlyTheRelayWorkingTheCallIsRelayedAndMovesToADirectPairThatOpensLater() throws {
        let h = IcePairHarness(seed: 7)
        h.relayedA = Self.relayed
        h.onlyRelayPasses = true
        h.start()
        #expect(h.run(for: .seconds(10)) { $0.bothConnected })
        #expect(h.a.selected?.localBase == Self.relayed)
        #expect(h.b.selected?.remoteAddress == Self.relayed)
        // Still relayed after a while: the direct pairs keep failing, and the call is not disturbed.
        h.run(for: .seconds(20))
        #expect(h.a.selected?.localBase == Self.relayed && h.bothConnected)

        // The direct path opens (a firewall rule lifted): within a few recheck intervals both move to it.
        h.onlyRelayPasses = false
        let opened = h.now
        #expect(h.run(for: .seconds(15)) {
            $0.a.selected?.localBase == $0.addressA && $0.b.selected?.remoteAddress == $0.addressA
        }, "A: \(String(describing: h.a.selected)), B: \(String(describing: h.b.selected))")
        #expect(h.now - opened <= .seconds(8))
        #expect(h.bothConnected)
        // Settled: no pair outranks a host-host pair, so nothing more is nominated.
        let selected = h.a.selected
        h.run(for: .seconds(10))
        #expect(h.a.selected == selected && h.b.selected?.remoteAddress == h.addressA)
    }
}
