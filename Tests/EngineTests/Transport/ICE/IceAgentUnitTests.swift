import Testing
@testable import EngineTransport

/// Formulas and single-agent message handling, checked against RFC 8445 text.
@Suite struct IceAgentUnitTests {
    let local = IceCredentials(ufrag: "LOCL", pwd: "local-password-0123456789")
    let remote = IceCredentials(ufrag: "REMO", pwd: "remote-password-012345678")
    let base = TransportAddress("10.0.0.1:5000")!
    let peer = TransportAddress("10.0.0.2:6000")!

    func makeAgent(role: IceRole = .controlled, tieBreaker: UInt64 = 50) -> IceAgent {
        let agent = IceAgent(config: IceAgentConfig(role: role, local: local, tieBreaker: tieBreaker, seed: 1))
        _ = agent.handle(.command(.addLocalHost(base)), now: .zero)
        return agent
    }

    func request(_ attributes: [StunAttribute], key: [UInt8]?, fingerprint: Bool = true, tid: UInt8 = 1) throws -> [UInt8] {
        try StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: [UInt8](repeating: tid, count: 12))!,
                    attributes: attributes).encode(integrityKey: key, fingerprint: fingerprint)
    }

    func responses(_ out: IceOutput) -> [StunMessage] { out.transmits.compactMap { try? StunMessage(decoding: $0.bytes) } }

    @Test func priorityFormulas() {
        // §5.1.2.1 with type preference 126 and local preference 65535 (the RFC's example maxima).
        #expect(CandidatePriority.candidate(kind: .host, localPreference: 65535) == 2_130_706_431)
        #expect(CandidatePriority.candidate(kind: .prflx, localPreference: 65535) == 1_862_270_975)
        #expect(CandidatePriority.candidate(kind: .relay, localPreference: 0) == 255)
        // §6.1.2.3.
        #expect(CandidatePriority.pair(controlling: 10, controlled: 20) == (10 << 32) + 40)
        #expect(CandidatePriority.pair(controlling: 20, controlled: 10) == (10 << 32) + 40 + 1)
        #expect(CandidatePriority.foundation(kind: .host, baseIP: IPAddress("10.0.0.1")!)
                == CandidatePriority.foundation(kind: .host, baseIP: IPAddress("10.0.0.1")!))
        #expect(CandidatePriority.foundation(kind: .host, baseIP: IPAddress("10.0.0.1")!)
                != CandidatePriority.foundation(kind: .host, baseIP: IPAddress("10.0.0.2")!))
    }

    @Test func gatheredCandidateIsSignalled() {
        let agent = IceAgent(config: IceAgentConfig(role: .controlling, local: local, tieBreaker: 1, seed: 1))
        let out = agent.handle(.command(.addLocalHost(base)), now: .zero)
        guard case .candidateGathered(let c) = out.events.first else {
            Issue.record("no candidate event")
            return
        }
        #expect(c.kind == .host && c.transportAddress == base)
        #expect(c.priority >> 24 == 126)
        #expect(agent.state == .new)
    }

    @Test func validRequestGetsAuthenticatedSuccessAndTriggersCheck() throws {
        let agent = makeAgent()
        _ = agent.handle(.command(.setRemoteCredentials(remote)), now: .zero)
        let bytes = try request([.username("LOCL:REMO"), .priority(1_862_270_975), .iceControlling(99), .useCandidate],
                            key: StunIntegrity.shortTermKey(password: local.pwd))
        let out = agent.handle(.datagram(from: peer, to: base, bytes: bytes), now: .zero)
        let messages = responses(out)
        let response = try #require(messages.first { $0.type == .bindingSuccess })
        #expect(response.xorMappedAddress == peer)
        #expect(response.verifyIntegrity(key: StunIntegrity.shortTermKey(password: local.pwd)))
        #expect(response.hasFingerprint)
        // The triggered check goes back to the peer, signed with the remote password, as the controlled agent.
        let check = try #require(messages.first { $0.type == .bindingRequest })
        #expect(check.username == "REMO:LOCL")
        #expect(check.iceControlled == 50)
        #expect(check.verifyIntegrity(key: StunIntegrity.shortTermKey(password: remote.pwd)))
        #expect(agent.remoteCandidates.first?.kind == .prflx)
        #expect(agent.remoteCandidates.first?.priority == 1_862_270_975)
        #expect(agent.state == .checking)
    }

    @Test func wrongPasswordGets401WithoutIntegrity() throws {
        let agent = makeAgent()
        let bytes = try request([.username("LOCL:REMO"), .priority(1), .iceControlling(99)], key: Array("wrong".utf8))
        let out = agent.handle(.datagram(from: peer, to: base, bytes: bytes), now: .zero)
        let response = try #require(responses(out).first)
        #expect(response.type == .bindingError && response.errorCode?.code == 401)
        #expect(!response.hasIntegrity)
        #expect(agent.remoteCandidates.isEmpty)
    }

    @Test func wrongUfragMissingIntegrityMissingPriorityAndUnknownAttributes() throws {
        let agent = makeAgent()
        let key = StunIntegrity.shortTermKey(password: local.pwd)
        let cases: [([UInt8], Int)] = [
            (try request([.username("OTHER:REMO"), .priority(1)], key: key), 401),
            (try request([.username("LOCL:REMO"), .priority(1)], key: nil), 400),
            (try request([.username("LOCL:REMO")], key: key), 400),
            (try request([.username("LOCL:REMO"), .priority(1), .unknown(type: 0x0042, value: [])], key: key), 420),
        ]
        for (bytes, code) in cases {
            let out = agent.handle(.datagram(from: peer, to: base, bytes: bytes), now: .zero)
            #expect(responses(out).first?.errorCode?.code == code)
        }
        #expect(agent.remoteCandidates.isEmpty)
    }

    @Test func requestWithoutFingerprintOrOnUnknownSocketIsDropped() throws {
        let agent = makeAgent()
        let key = StunIntegrity.shortTermKey(password: local.pwd)
        let noFingerprint = try request([.username("LOCL:REMO"), .priority(1)], key: key, fingerprint: false)
        #expect(agent.handle(.datagram(from: peer, to: base, bytes: noFingerprint), now: .zero).transmits.isEmpty)
        let good = try request([.username("LOCL:REMO"), .priority(1)], key: key)
        #expect(agent.handle(.datagram(from: peer, to: TransportAddress("10.9.9.9:1")!, bytes: good), now: .zero).transmits.isEmpty)
        #expect(agent.handle(.datagram(from: peer, to: base, bytes: [0x80, 0, 0, 0]), now: .zero).transmits.isEmpty)
    }

    @Test func controllingAgentWithLargerTieBreakerAnswers487() throws {
        let agent = makeAgent(role: .controlling, tieBreaker: 1000)
        let bytes = try request([.username("LOCL:REMO"), .priority(1), .iceControlling(5)], key: StunIntegrity.shortTermKey(password: local.pwd))
        let out = agent.handle(.datagram(from: peer, to: base, bytes: bytes), now: .zero)
        let response = try #require(responses(out).first)
        #expect(response.errorCode?.code == 487)
        #expect(response.verifyIntegrity(key: StunIntegrity.shortTermKey(password: local.pwd)))
        #expect(agent.role == .controlling)
    }

    @Test func controllingAgentWithSmallerTieBreakerYields() throws {
        let agent = makeAgent(role: .controlling, tieBreaker: 5)
        let bytes = try request([.username("LOCL:REMO"), .priority(1), .iceControlling(1000)], key: StunIntegrity.shortTermKey(password: local.pwd))
        let out = agent.handle(.datagram(from: peer, to: base, bytes: bytes), now: .zero)
        #expect(responses(out).first?.type == .bindingSuccess)
        #expect(agent.role == .controlled)
        #expect(out.events.contains(.roleChanged(.controlled)))
    }

    @Test func forgedResponseIsIgnored() throws {
        let agent = makeAgent(role: .controlling)
        _ = agent.handle(.command(.setRemoteCredentials(remote)), now: .zero)
        let out = agent.handle(.command(.addRemoteCandidate(IceCandidate(foundation: "r", priority: 100, address: .ip(peer.ip),
                                                                        port: peer.port, kind: .host))), now: .zero)
        let check = try #require(out.transmits.first.flatMap { try? StunMessage(decoding: $0.bytes) })
        let forged = try StunMessage(type: .bindingSuccess, transactionID: check.transactionID, attributes: [.xorMappedAddress(base)])
            .encode(integrityKey: Array("not the remote password".utf8), fingerprint: true)
        _ = agent.handle(.datagram(from: peer, to: base, bytes: forged), now: Duration.milliseconds(5).asTime)
        #expect(agent.selected == nil)
        #expect(agent.state == .checking)
    }

    @Test func checkingFailsOnceAllPairsFailAfterEndOfCandidates() {
        let agent = makeAgent(role: .controlling)
        _ = agent.handle(.command(.setRemoteCredentials(remote)), now: .zero)
        _ = agent.handle(.command(.endOfRemoteCandidates), now: .zero)
        var out = agent.handle(.command(.addRemoteCandidate(IceCandidate(foundation: "r", priority: 100, address: .ip(peer.ip),
                                                                        port: peer.port, kind: .host))), now: .zero)
        var sent = out.transmits.count
        var now = TransportTime.zero
        while let deadline = out.deadline, agent.state != .failed {
            now = deadline
            out = agent.handle(.timeout, now: now)
            sent += out.transmits.count
        }
        #expect(agent.state == .failed)
        #expect(sent == 7)                       // Rc transmissions, then the only pair fails
        #expect(now < TransportTime.zero + .seconds(12))
    }

    @Test func closeStopsEverything() {
        let agent = makeAgent(role: .controlling)
        let out = agent.handle(.command(.close), now: .zero)
        #expect(out.events == [.stateChanged(.closed)])
        #expect(out.deadline == nil)
        #expect(agent.handle(.timeout, now: .zero).transmits.isEmpty)
    }
}

extension Duration {
    var asTime: TransportTime { TransportTime.zero + self }
}

@Suite struct IcePeerReflexiveReplacementTests {
    @Test func signalledCandidateReplacesPrflxAndReprioritisesItsPair() throws {
        let local = IceCredentials(ufrag: "LOCL", pwd: "local-password-0123456789")
        let base = TransportAddress("10.0.0.1:5000")!, peer = TransportAddress("10.0.0.2:6000")!
        let agent = IceAgent(config: IceAgentConfig(role: .controlled, local: local, tieBreaker: 1, seed: 1))
        _ = agent.handle(.command(.addLocalHost(base)), now: .zero)
        let check = try StunMessage(type: .bindingRequest, transactionID: TransactionID(bytes: [UInt8](repeating: 7, count: 12))!,
                                attributes: [.username("LOCL:REMO"), .priority(1_000), .iceControlling(9)])
            .encode(integrityKey: StunIntegrity.shortTermKey(password: local.pwd), fingerprint: true)
        _ = agent.handle(.datagram(from: peer, to: base, bytes: check), now: .zero)
        #expect(agent.remoteCandidates.map(\.kind) == [.prflx])
        let before = try #require(agent.pairs.first?.priority)
        let signalled = IceCandidate(foundation: "9", priority: 2_000_000_000, address: .ip(peer.ip), port: peer.port, kind: .host)
        _ = agent.handle(.command(.addRemoteCandidate(signalled)), now: .zero)
        #expect(agent.remoteCandidates == [signalled])
        #expect(agent.pairs.count == 1)
        #expect(agent.pairs[0].priority != before)
        #expect(agent.pairs[0].priority == CandidatePriority.pair(controlling: signalled.priority, controlled: agent.localCandidates[0].priority))
    }
}

@Suite struct IceTrickleTests {
    /// Without end-of-candidates, a checklist whose only pair failed keeps waiting for trickled candidates
    /// (RFC 8838), and a later reachable candidate still connects; silence ends in failure at `checkingTimeout`.
    @Test func failedChecklistWaitsForTrickledCandidates() throws {
        let h = IcePairHarness(seed: 71)
        h.signalCandidatesOfA = false   // B stays silent: it can only answer once A finds it
        h.signalCandidatesOfB = false
        h.start()
        // A first hears of an address where nothing answers.
        let dead = IceCandidate(foundation: "dead", priority: 2_130_706_431, address: .ip(IPAddress("10.0.0.99")!), port: 9, kind: .host)
        h.feed("A", .command(.addRemoteCandidate(dead)))
        h.run(for: .seconds(12))
        #expect(h.a.pairs.count == 1 && h.a.pairs[0].state == .failed)
        #expect(h.a.state == .checking)
        // B's real candidate trickles in late.
        let real = try #require(h.b.localCandidates.first)
        h.feed("A", .command(.addRemoteCandidate(real)))
        #expect(h.run(for: .seconds(5)) { $0.bothConnected })
    }

    @Test func silenceFailsAtCheckingTimeout() {
        let h = IcePairHarness(seed: 72)
        h.signalCandidatesOfA = false
        h.signalCandidatesOfB = false
        h.start()
        let dead = IceCandidate(foundation: "dead", priority: 2_130_706_431, address: .ip(IPAddress("10.0.0.99")!), port: 9, kind: .host)
        h.feed("A", .command(.addRemoteCandidate(dead)))
        h.run(for: .seconds(40))
        let failedAt = h.firstTime("A", reaches: .failed)
        #expect(failedAt.map { $0 - TransportTime.zero >= .seconds(30) && $0 - TransportTime.zero <= .seconds(31) } == true)
    }
}
