import Testing
import EngineTestSupport
@testable import Engine

/// ICE restart through renegotiation (RFC 8445 §9, RFC 8839 §4.4.1.1.1) on a connected pair: a re-offer with new
/// credentials, answered with new ones, finds the path again while the DTLS association stays; when both ends
/// re-offer at once, the original answerer rolls its offer back and answers.
@Suite struct IceRestartRenegotiationTests {
    func ufrag(_ description: SessionDescription) -> String? {
        description.media.firstIndex { !$0.isRejected }.flatMap { description.iceCredentials(mediaIndex: $0)?.ufrag }
    }

    func connected(seed: UInt64) throws -> PeerPairHarness {
        let h = try PeerPairHarness(seed: seed)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
        return h
    }

    /// Delivers `from`'s latest description to the other side, then the candidates `from` trickled after it.
    func deliver(_ h: PeerPairHarness, from: String, as type: SdpType, trickledBefore: Int) throws {
        let to = from == "A" ? "B" : "A"
        let description = try SessionDescription(parsing: try #require(h.description(from)).sdpText)
        h.feed(to, .command(type == .offer ? .applyRemoteOffer(description) : .applyRemoteAnswer(description)))
        for c in h.trickled[from]!.dropFirst(trickledBefore) { h.feed(to, .command(.addRemoteCandidate(c.candidate))) }
    }

    func dtlsHandshakes(_ h: PeerPairHarness, _ name: String) -> Int {
        h.count(name) { if case .dtlsConnected = $0 { true } else { false } }
    }

    @Test(.timeLimit(.minutes(1)))
    func aRestartFindsThePathAgainWithNewCredentialsAndTheSameDTLS() throws {
        let h = try connected(seed: 41)
        let before = (a: try #require(h.description("A")), b: try #require(h.description("B")))
        let trickled = (a: h.trickled["A"]!.count, b: h.trickled["B"]!.count)
        h.feed("A", .command(.restartIce(relayed: nil, mapped: nil)))
        #expect(h.a.signalingState == .haveLocalOffer)
        try deliver(h, from: "A", as: .offer, trickledBefore: trickled.a)
        try deliver(h, from: "B", as: .answer, trickledBefore: trickled.b)
        let after = (a: try #require(h.description("A")), b: try #require(h.description("B")))
        #expect(ufrag(after.a) != ufrag(before.a) && ufrag(after.b) != ufrag(before.b))
        #expect(h.a.iceRestarts == 1 && h.b.iceRestarts == 1)
        #expect(h.a.signalingState == .stable && h.b.signalingState == .stable)
        #expect(h.run(for: .seconds(5), until: { h.a.transport?.ice.state == .connected && h.b.transport?.ice.state == .connected }))
        #expect(h.a.state == .connected && h.b.state == .connected)
        #expect(dtlsHandshakes(h, "A") == 1 && dtlsHandshakes(h, "B") == 1, "the DTLS association is the same")
        #expect(h.a.transport?.ice.restarts == 1 && h.b.transport?.ice.restarts == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aCandidateOfTheGenerationBeforeARestartIsIgnored() throws {
        let h = try connected(seed: 43)
        let oldDescription = try #require(h.description("B"))
        let oldUfrag = try #require(ufrag(oldDescription))
        let trickled = (a: h.trickled["A"]!.count, b: h.trickled["B"]!.count)
        h.feed("A", .command(.restartIce(relayed: nil, mapped: nil)))
        try deliver(h, from: "A", as: .offer, trickledBefore: trickled.a)
        try deliver(h, from: "B", as: .answer, trickledBefore: trickled.b)
        let newDescription = try #require(h.description("B"))
        let newUfrag = try #require(ufrag(newDescription))
        #expect(newUfrag != oldUfrag)
        // A candidate B trickled before the restart, delayed past it (browsers name the generation's ufrag in it).
        let late = try IceCandidate(parsing: "candidate:9 1 udp 2122260223 127.0.0.99 5999 typ host generation 0 ufrag \(oldUfrag)")
        let current = try IceCandidate(parsing: "candidate:8 1 udp 2122260223 127.0.0.98 5998 typ host generation 0 ufrag \(newUfrag)")
        let before = h.a.transport?.ice.remoteCandidateCount ?? 0
        let out = h.feed("A", .command(.addRemoteCandidate(late)))
        #expect(out.events.contains { if case .warning(let w) = $0 { w.contains("earlier ICE generation") } else { false } })
        #expect(h.a.staleRemoteCandidates == 1 && h.a.transport?.ice.remoteCandidateCount == before)
        h.feed("A", .command(.addRemoteCandidate(current)))
        #expect(h.a.transport?.ice.remoteCandidateCount == before + 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func whenBothRestartAtOnceTheAnswererYields() throws {
        let h = try connected(seed: 42)
        let trickled = (a: h.trickled["A"]!.count, b: h.trickled["B"]!.count)
        h.feed("A", .command(.restartIce(relayed: nil, mapped: nil)))
        h.feed("B", .command(.restartIce(relayed: nil, mapped: nil)))
        let offerOfB = try SessionDescription(parsing: try #require(h.description("B")).sdpText)
        // A, the original offerer, keeps its offer and ignores B's.
        let ignored = h.feed("A", .command(.applyRemoteOffer(offerOfB)))
        #expect(ignored.events.contains { if case .warning(let w) = $0 { w.contains("ours stands") } else { false } })
        #expect(h.a.signalingState == .haveLocalOffer)
        // B, the original answerer, rolls its own back and answers A's.
        let trickledB = h.trickled["B"]!.count
        try deliver(h, from: "A", as: .offer, trickledBefore: trickled.a)
        #expect(h.events["B"]!.contains { if case .warning(let w) = $0 { w.contains("rolled back") } else { false } })
        #expect(h.b.signalingState == .stable)
        try deliver(h, from: "B", as: .answer, trickledBefore: trickledB)
        #expect(h.a.signalingState == .stable)
        #expect(h.run(for: .seconds(5), until: { h.a.transport?.ice.state == .connected && h.b.transport?.ice.state == .connected }))
        #expect(h.a.state == .connected && h.b.state == .connected)
        #expect(dtlsHandshakes(h, "A") == 1 && dtlsHandshakes(h, "B") == 1)
        _ = trickled.b
    }
}
