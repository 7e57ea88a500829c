import Synchronization
import Testing
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// Issue #12: one ordinary signaling message from any room member used to kill every participant. Each crasher and
/// each limit goes through the ordinary APIs here (`PeerConnection` commands, `Call.handle`): the hostile peer's
/// connection is refused or fails with a reason, nothing traps, and everyone else's call goes on.
@Suite struct HostilePeerTests {
    func warnings(_ events: [PeerConnection.Event]) -> [String] {
        events.compactMap { if case .warning(let text) = $0 { text } else { nil } }
    }

    func described(_ events: [PeerConnection.Event]) -> Bool {
        events.contains { if case .localDescription = $0 { true } else { false } }
    }

    @Test func offerWithoutAMediaSectionIsRefusedNotIndexed() throws {
        let pc = try PeerConnection(configuration: .random(localHosts: [TransportAddress("10.0.0.2:6000")!]))
        let out = pc.handle(.command(.applyRemoteOffer(try SessionDescription(parsing: "v=0\r\n"))), now: .zero)
        #expect(pc.state == .failed)
        #expect(!described(out.events) && out.transmits.isEmpty && out.deadline == nil)
        let why = warnings(out.events)
        #expect(why.count == 1 && why[0].contains("no media section"), "\(why)")
        // Whatever follows is ignored quietly.
        let later = pc.handle(.command(.addRemoteCandidate(try IceCandidate(parsing: "candidate:1 1 udp 1 10.0.0.1 5000 typ host"))),
                              now: .zero + .seconds(1))
        #expect(later.transmits.isEmpty && pc.state == .failed)
    }

    @Test func offerWithA70000ByteUfragIsRefusedBeforeAnyCheck() throws {
        let h = try PeerPairHarness(seed: 3)
        h.feed("A", .command(.createOffer))
        var offer = try #require(h.description("A"))
        for i in offer.media.indices { offer.media[i].iceUfrag = String(repeating: "u", count: 70_000) }
        // Through the text, as a signaling message carries it.
        h.feed("B", .command(.applyRemoteOffer(try SessionDescription(parsing: offer.sdpText))))
        for c in h.trickled["A"]! { h.feed("B", .command(.addRemoteCandidate(c.candidate))) }
        h.run(for: .seconds(3))
        #expect(h.b.state == .failed && !described(h.events["B"]!))
        let why = warnings(h.events["B"]!)
        #expect(why.first?.contains("ice-ufrag") == true && why.first?.contains("RFC 8839 §5.4") == true, "\(why)")
        #expect(why.allSatisfy { $0.utf8.count < 300 }, "a refusal quotes the value, it does not copy it")
    }

    @Test func overlongMidIsRefused() throws {
        let h = try PeerPairHarness(seed: 4)
        h.feed("A", .command(.createOffer))
        var offer = try #require(h.description("A"))
        offer.media[0].mid = Mid(rawValue: String(repeating: "m", count: 70_000))
        h.feed("B", .command(.applyRemoteOffer(offer)))
        #expect(h.b.state == .failed && warnings(h.events["B"]!).first?.contains("mid") == true)
    }

    @Test func answerWithAnOverlongPwdFailsTheOfferer() throws {
        let h = try PeerPairHarness(seed: 5)
        h.feed("A", .command(.createOffer))
        h.feed("B", .command(.applyRemoteOffer(try #require(h.description("A")))))
        var answer = try #require(h.description("B"))
        for i in answer.media.indices { answer.media[i].icePwd = String(repeating: "p", count: 257) }
        h.feed("A", .command(.applyRemoteAnswer(answer)))
        #expect(h.a.state == .failed)
        #expect(warnings(h.events["A"]!).contains { $0.contains("remote answer refused") && $0.contains("ice-pwd") })
        h.run(for: .seconds(2))
        #expect(h.a.state == .failed)
    }

    @Test func answerAcceptingNoSectionFailsTheOfferer() throws {
        let h = try PeerPairHarness(seed: 8)
        h.feed("A", .command(.createOffer))
        h.feed("B", .command(.applyRemoteOffer(try #require(h.description("A")))))
        var answer = try #require(h.description("B"))
        for i in answer.media.indices { answer.media[i].port = 0 }
        h.feed("A", .command(.applyRemoteAnswer(answer)))
        #expect(h.a.state == .failed)
        #expect(warnings(h.events["A"]!).contains { $0.contains("accepts none of our media sections") })
    }

    @Test(.timeLimit(.minutes(1)))
    func overlongCandidatesAreDroppedAndTheConnectionGoesOn() throws {
        let h = try PeerPairHarness(seed: 6)
        let address = IPAddress("10.0.0.1")!
        let hostile = [
            IceCandidate(foundation: String(repeating: "f", count: 40), priority: 1, address: .ip(address), port: 5000, kind: .host),
            IceCandidate(foundation: "1", priority: 1, address: .hostname(String(repeating: "h", count: 70_000)), port: 5000, kind: .host),
            IceCandidate(foundation: "1", priority: 1, address: .ip(address), port: 5000, kind: .host,
                         extensions: [.init(name: "ufrag", value: String(repeating: "u", count: 300))]),
        ]
        for c in hostile { h.feed("B", .command(.addRemoteCandidate(c))) }
        #expect(warnings(h.events["B"]!).filter { $0.contains("remote candidate refused") }.count == 3)
        try h.negotiate()
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
    }

    /// Candidates no unicast peer can have (broadcast, multicast, unspecified, port 0...) are refused with a reason
    /// before ICE or the relay sees them; a flood of them logs the first few and counts the rest; the call goes on.
    @Test(.timeLimit(.minutes(1)))
    func candidatesNoUnicastPeerHasAreRefusedWithAReasonAndTheConnectionGoesOn() throws {
        let h = try PeerPairHarness(seed: 7)
        let texts = ["255.255.255.255:9", "224.0.0.1:5000", "0.0.0.0:9", "240.0.0.1:9", "[::]:9", "[ff02::1]:9",
                     "[::ffff:255.255.255.255]:9", "10.0.0.1:0"] + (1...40).map { "239.1.1.\($0):5000" }
        for text in texts {
            let a = TransportAddress(text)!
            h.feed("B", .command(.addRemoteCandidate(IceCandidate(foundation: "x", priority: 1, address: .ip(a.ip),
                                                                   port: a.port, kind: .host))))
        }
        // Held until the remote description is there, then refused.
        try h.negotiate()
        let refused = warnings(h.events["B"]!).filter { $0.contains("not a unicast peer") }
        #expect(refused.count == PeerConnection.refusalsLogged)
        #expect(refused.first?.contains("255.255.255.255:9 refused: limited broadcast") == true)
        #expect(refused.last?.contains("further refusals are counted") == true)
        #expect(h.b.refusedRemoteCandidates == texts.count)
        #expect(h.run(for: .seconds(5), until: { h.a.state == .connected && h.b.state == .connected }))
    }
}

/// The same crashers at a whole `Call` (what `conftui bot` and `join` run): the hostile member's connections fail
/// with a logged reason, and a well-formed member joining afterwards sees and hears the call.
@Suite(.serialized) struct CallHostileSignalingTests {
    @Test(.timeLimit(.minutes(1)))
    func crashersFromOneMemberLeaveTheCallToEveryoneElse() throws {
        let room = InProcessRoom()
        let lines = Mutex<[String]>([])
        let a = try room.makeCall("a", tone: 440, participant: 1, log: { line in lines.withLock { $0.append(line) } })
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        room.join("a")
        let A = RemotePeerID("a"), B = RemotePeerID("b"), mallory = RemotePeerID("mallory")
        room.deliver(A, .newPeer(mallory))
        room.deliver(A, .offer(from: mallory, sdp: "v=0\r\n"))
        let hugeUfrag = SdpFixtures.chromeOffer.replacingOccurrences(of: "a=ice-ufrag:EsAw",
                                                                    with: "a=ice-ufrag:" + String(repeating: "u", count: 70_000))
        room.deliver(A, .offer(from: mallory, sdp: hugeUfrag))
        room.deliver(A, .candidate(from: mallory, candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host x " + String(repeating: "y", count: 70_000),
                                   mid: "0", mLineIndex: 0))
        room.deliver(A, .offer(from: RemotePeerID(String(repeating: "z", count: 200)), sdp: SdpFixtures.chromeOffer))
        room.join("b")
        let flowing = waitFor(10) {
            let sa = a.snapshot(analyseAudio: false), sb = b.snapshot(analyseAudio: false)
            return (sa.peers[B]?.video.testCard?.count ?? 0) >= 15 && (sb.peers[A]?.video.testCard?.count ?? 0) >= 15
        }
        let sa = a.snapshot(), sb = b.snapshot()
        #expect(flowing, "media both ways after the crashers: \(sa.peers[B].map { "\($0.video)" } ?? "no b") \(sb.peers[A].map { "\($0.video)" } ?? "no a")")
        #expect(abs((sa.peers[B]?.audio.dominantFrequency ?? 0) - 660) < 10)
        #expect(sa.peers[mallory]?.transport.state == .failed)
        #expect(sa.peers.count == 2, "no connection for the over-long id: \(sa.peers.keys)")
        let log = lines.withLock { $0 }
        #expect(log.contains { $0.contains("no media section") })
        #expect(log.contains { $0.contains("ice-ufrag") && $0.contains("RFC 8839 §5.4") })
        #expect(log.contains { $0.contains("ignoring candidate") && $0.contains("bytes") })
        #expect(log.contains { $0.contains("refusing a signaling message: peer id") })
        #expect(log.allSatisfy { $0.utf8.count < 1000 }, "log lines quote remote values, they do not copy them")
        // The same member's well-formed offer afterwards is answered on a fresh connection (Chrome's offer names no
        // loopback candidate, so it stays connecting here).
        room.deliver(A, .offer(from: mallory, sdp: SdpFixtures.chromeOffer))
        #expect(waitFor(3) { a.snapshot(analyseAudio: false).peers[mallory]?.transport.state == .connecting })
        #expect(a.snapshot(analyseAudio: false).peers[mallory]?.role == .answerer)
    }
}
