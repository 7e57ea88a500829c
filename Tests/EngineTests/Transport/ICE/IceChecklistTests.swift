import Testing
@testable import EngineTransport

/// Checklist formation, ordering and pacing with several interfaces (RFC 8445 §6.1.2, §6.1.4, §14.2).
@Suite struct IceChecklistTests {
    func firstTransmissions(_ h: IcePairHarness, _ name: String) -> [(TransportTime, Transmit, StunMessage)] {
        var seen = Set<TransactionID>()
        return h.sent[name, default: []].compactMap { (at, t) in
            guard let m = try? StunMessage(decoding: t.bytes), m.type == .bindingRequest, seen.insert(m.transactionID).inserted
            else { return nil }
            return (at, t, m)
        }
    }

    func multiHomed(seed: UInt64) -> IcePairHarness {
        let h = IcePairHarness(seed: seed)
        h.extraHostsA = [TransportAddress("10.0.1.1:5001")!, TransportAddress("[2001:db8::a]:5002")!]
        h.extraHostsB = [TransportAddress("10.0.1.2:6001")!, TransportAddress("[2001:db8::b]:6002")!]
        return h
    }

    @Test func pairsOnlyFormWithinAnAddressFamily() {
        let h = multiHomed(seed: 31)
        h.start()
        // 2 IPv4 × 2 IPv4 + 1 IPv6 × 1 IPv6.
        #expect(h.a.localCandidates.count == 3 && h.a.remoteCandidates.count == 3)
        #expect(h.a.pairs.count == 5 && h.b.pairs.count == 5)
        #expect(Set(h.a.localCandidates.map(\.foundation)).count == 3)
    }

    @Test func newChecksArePacedByTa() {
        let h = multiHomed(seed: 32)
        h.network.configure { $0.delay = .milliseconds(200) }   // slow responses keep the checklist busy for a while
        h.start()
        #expect(h.run(for: .seconds(10)) { $0.bothConnected })
        for name in ["A", "B"] {
            let times = firstTransmissions(h, name).map(\.0)
            #expect(times.count >= 5)
            // §14.2: at most one new check (ordinary or triggered) per Ta = 50 ms; retransmissions are excluded.
            let gaps = zip(times.dropFirst(), times).map { $0.0 - $0.1 }
            #expect(gaps.allSatisfy { $0 >= .milliseconds(50) }, "\(name) gaps \(gaps)")
        }
    }

    @Test func highestPriorityPairIsCheckedFirstAndSelected() throws {
        let h = multiHomed(seed: 33)
        h.start()
        #expect(h.run(for: .seconds(10)) { $0.bothConnected })
        let first = try #require(firstTransmissions(h, "A").first)
        // The IPv6 interface was gathered last but IPv6 ranks above IPv4 (RFC 8421), so its pair leads.
        let best = try #require(h.a.pairs.max { $0.priority < $1.priority })
        let bestLocal = h.a.localCandidates[best.local], bestRemote = h.a.remoteCandidates[best.remote]
        #expect(first.1.from == bestLocal.transportAddress)
        #expect(first.1.to == bestRemote.transportAddress)
        // With no loss the best pair succeeds and is the one nominated.
        #expect(h.a.selected?.local == bestLocal && h.a.selected?.remote == bestRemote)
        #expect(h.b.selected?.remoteAddress == bestLocal.transportAddress)
    }

    @Test func controllingNominatesExactlyOnce() {
        let h = multiHomed(seed: 34)
        h.start()
        #expect(h.run(for: .seconds(10)) { $0.bothConnected })
        h.run(for: .seconds(5))
        let nominations = firstTransmissions(h, "A").filter { $0.2.useCandidate }
        #expect(nominations.count == 1)
        #expect(firstTransmissions(h, "B").allSatisfy { !$0.2.useCandidate })
        let selectedEvents = h.records.filter { if case .selectedPairChanged = $0.event { true } else { false } }
        #expect(selectedEvents.count == 2)   // once per agent
    }

    @Test func loopbackPairsOnlyWithLoopback() throws {
        let agent = IceAgent(config: IceAgentConfig(role: .controlling, local: .init(ufrag: "abcd", pwd: "0123456789012345678901"),
                                                    tieBreaker: 1, seed: 1))
        _ = agent.handle(.command(.addLocalHost(TransportAddress("127.0.0.1:5000")!)), now: .zero)
        _ = agent.handle(.command(.addLocalHost(TransportAddress("10.0.0.1:5000")!)), now: .zero)
        for (i, address) in ["127.0.0.1:6000", "192.0.2.2:6000"].enumerated() {
            let a = TransportAddress(address)!
            _ = agent.handle(.command(.addRemoteCandidate(IceCandidate(foundation: "\(i)", priority: 100, address: .ip(a.ip),
                                                                      port: a.port, kind: .host))), now: .zero)
        }
        let pairs = agent.pairs.map { (agent.localCandidates[$0.local].transportAddress!, agent.remoteCandidates[$0.remote].transportAddress!) }
        #expect(pairs.count == 2)
        #expect(pairs.allSatisfy { $0.0.ip.isLoopback == $0.1.ip.isLoopback })
        // But a check that really arrived from a non-loopback address on the loopback socket is paired.
        _ = agent.handle(.command(.setRemoteCredentials(.init(ufrag: "REMO", pwd: "remote-password-0123456"))), now: .zero)
        let check = try StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: [UInt8](repeating: 3, count: 12))!,
                                attributes: [.username("abcd:REMO"), .priority(1_853_628_159), .iceControlled(9)])
            .encode(integrityKey: StunIntegrity.shortTermKey(password: "0123456789012345678901"), fingerprint: true)
        let out = agent.handle(.datagram(from: TransportAddress("192.0.2.2:7000")!, to: TransportAddress("127.0.0.1:5000")!,
                                         bytes: check), now: .zero)
        #expect(out.transmits.contains { (try? StunMessage(decoding: $0.bytes))?.type == .bindingSuccess })
        #expect(agent.remoteCandidates.last?.kind == .prflx)
        let prflx = agent.remoteCandidates.count - 1
        // Paired with the loopback socket it arrived on (and, by the ordinary rule, with the 10.0.0.1 one).
        #expect(agent.pairs.filter { $0.remote == prflx }.map { agent.localCandidates[$0.local].transportAddress!.ip.isLoopback }.sorted { !$0 && $1 }
                == [false, true])
    }
}
