import Testing
@testable import EngineTransport

/// Two agents through the emulated network: connection, loss, role conflicts, peer-reflexive learning.
@Suite struct IceAgentConnectivityTests {
    func expectSameSelectedPair(_ h: IcePairHarness) {
        #expect(h.a.selected?.localBase == h.addressA)
        #expect(h.a.selected?.remoteAddress == h.addressB)
        #expect(h.b.selected?.localBase == h.addressB)
        #expect(h.b.selected?.remoteAddress == h.addressA)
    }

    @Test func connectsWithoutLoss() {
        let h = IcePairHarness(seed: 1)
        h.start()
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        expectSameSelectedPair(h)
        #expect(h.states("A").map(\.1) == [.checking, .connected])
        #expect(h.states("B").map(\.1) == [.checking, .connected])
        // Without loss: a few round trips of 10 ms plus pacing, far below a second.
        #expect(h.now.seconds < 0.6)
        #expect(h.a.role == .controlling && h.b.role == .controlled)
    }

    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18] as [UInt64])
    func connectsWithTwentyPercentLossAndReordering(seed: UInt64) {
        let h = IcePairHarness(seed: seed)
        h.network.configure {
            $0.loss = 0.2
            $0.delay = .milliseconds(20)
            $0.jitter = .milliseconds(80)   // > Ta, so checks and responses overtake each other
        }
        h.start()
        #expect(h.run(for: .seconds(15)) { $0.bothConnected })
        expectSameSelectedPair(h)
        // Stays up for a minute of lossy consent traffic (expiry needs 30 s without any valid response).
        h.run(for: .seconds(60))
        #expect(h.a.state != .failed && h.b.state != .failed)
        #expect(h.network.dropped > 0 && h.network.sent > 20)
    }

    @Test func aggressiveNominationConnects() {
        let h = IcePairHarness(seed: 3, nomination: .aggressive)
        h.network.configure { $0.loss = 0.2 }
        h.start()
        #expect(h.run(for: .seconds(15)) { $0.bothConnected })
        expectSameSelectedPair(h)
    }

    @Test(arguments: [IceRole.controlling, .controlled])
    func roleConflictIsRepaired(both role: IceRole) {
        // RFC 8445 §7.3.1.1: the larger tie-breaker ends up controlling.
        let h = IcePairHarness(roleA: role, roleB: role, seed: 5, tieBreakers: (100, 200))
        h.start()
        #expect(h.run(for: .seconds(10)) { $0.bothConnected })
        #expect(h.a.role == .controlled)
        #expect(h.b.role == .controlling)
        expectSameSelectedPair(h)
        let roleEvents = h.records.filter { if case .roleChanged = $0.event { true } else { false } }
        #expect(!roleEvents.isEmpty)
        // The agent that keeps its role answers the crossing check with 487 (§7.3.1.1).
        let conflicts = h.sent.values.joined().filter { (_, t) in
            (try? StunMessage(decoding: t.bytes))?.errorCode?.code == 487
        }
        #expect(!conflicts.isEmpty)
    }

    @Test func peerReflexiveCandidateIsLearned() {
        let h = IcePairHarness(seed: 7)
        h.signalCandidatesOfA = false   // B never hears of A's candidate: it must learn it from A's check
        h.start()
        #expect(h.b.remoteCandidates.isEmpty)
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        #expect(h.b.remoteCandidates.count == 1)
        #expect(h.b.remoteCandidates.first?.kind == .prflx)
        #expect(h.b.remoteCandidates.first?.transportAddress == h.addressA)
        expectSameSelectedPair(h)
    }

    @Test func mdnsCandidateIsIgnoredButPrflxConnects() {
        let h = IcePairHarness(seed: 8)
        h.signalCandidatesOfA = false
        h.start()
        // What Chrome would signal for A: its host address hidden behind an mDNS name.
        let hidden = IceCandidate(foundation: "1", priority: 2_122_260_223, address: .hostname("1f4712db-ea17-4bcf-a596-105139dfd8bf.local"),
                                  port: 5000, kind: .host)
        h.feed("B", .command(.addRemoteCandidate(hidden)))
        #expect(h.b.ignoredMdnsCandidates == 1)
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
        #expect(h.b.selected?.remote.kind == .prflx)
    }

    @Test func sameSeedSameTimeline() {
        func timeline() -> [String] {
            let h = IcePairHarness(seed: 99)
            h.network.configure {
                $0.loss = 0.2
                $0.jitter = .milliseconds(60)
            }
            h.start()
            h.run(for: .seconds(20))
            return h.records.map { "\($0.at.nanoseconds) \($0.agent) \($0.event)" }
        }
        #expect(timeline() == timeline())
    }
}
