import Testing
@testable import Engine

/// The SkyRTC mesh rules (`Mesh`) on a virtual clock: no sockets, no threads, no sleeping; the suite runs in
/// milliseconds although it covers seconds of retries.
@Suite struct MeshTests {
    let a = RemotePeerID("aaaa-small"), b = RemotePeerID("bbbb"), c = RemotePeerID("cccc"), z = RemotePeerID("zzzz-large")

    func at(_ seconds: Double) -> TransportTime { TransportTime(nanoseconds: Int64(seconds * 1e9)) }

    /// A description standing for an offer or answer: the policy only passes it on.
    func sd(_ name: String) -> SessionDescription { SessionDescription(origin: SdpOrigin(sessionID: name)) }

    /// One with an ICE username fragment: the policy tells a renegotiation from a new session by it.
    func sd(_ name: String, ufrag: String) -> SessionDescription {
        var d = sd(name)
        var m = MediaDescription(kind: "audio", formats: ["111"])
        (m.iceUfrag, m.icePwd) = (ufrag, "0123456789abcdefghijkl")
        d.media = [m]
        return d
    }

    @Test func anOfferOfTheSameSessionRenegotiatesAndANewOneReplaces() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: a, others: [])), now: at(0))
        _ = mesh.handle(.signal(.newPeer(z)), now: at(0))
        #expect(acts(mesh.handle(.signal(.offer(from: z, sd("1", ufrag: "zz01"))), now: at(0.1))) == [.applyRemoteOffer(z, sd("1", ufrag: "zz01"))])
        _ = mesh.handle(.connectionState(z, .connected), now: at(0.5))
        // The browser starts sharing its screen: same ICE session, the running connection answers.
        #expect(acts(mesh.handle(.signal(.offer(from: z, sd("2", ufrag: "zz01"))), now: at(5))) == [.applyRemoteOffer(z, sd("2", ufrag: "zz01"))])
        // A new session (the peer restarted): a fresh connection.
        #expect(acts(mesh.handle(.signal(.offer(from: z, sd("3", ufrag: "zz02"))), now: at(6)))
                == [.closeConnection(z, cause: "replaced by a new offer"), .createConnection(z, role: nil), .applyRemoteOffer(z, sd("3", ufrag: "zz02"))])
        // As the offerer too: after our offer was answered, the peer's re-offer of the same session renegotiates.
        _ = mesh.handle(.signal(.joined(you: z, others: [b])), now: at(7))
        _ = mesh.handle(.signal(.answer(from: b, sd("4", ufrag: "bb01"))), now: at(7.1))
        #expect(acts(mesh.handle(.signal(.offer(from: b, sd("5", ufrag: "bb01"))), now: at(8))) == [.applyRemoteOffer(b, sd("5", ufrag: "bb01"))])
    }

    /// A description with ICE credentials and a DTLS fingerprint: the policy tells an ICE restart (same
    /// fingerprint, new ufrag) from a new session (new fingerprint) by them.
    func sd(_ name: String, ufrag: String, certificate: UInt8) -> SessionDescription {
        var d = sd(name, ufrag: ufrag)
        d.media[0].fingerprints = [DtlsFingerprint(algorithm: "sha-256", bytes: [UInt8](repeating: certificate, count: 32))]
        return d
    }

    @Test func newIceCredentialsWithTheSameCertificateRestartIceOnTheRunningConnection() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: a, others: [])), now: at(0))
        _ = mesh.handle(.signal(.newPeer(z)), now: at(0))
        _ = mesh.handle(.signal(.offer(from: z, sd("1", ufrag: "zz01", certificate: 1))), now: at(0.1))
        _ = mesh.handle(.connectionState(z, .connected), now: at(0.5))
        // The peer's relay or address changed: its re-offer has new credentials and the same certificate.
        #expect(acts(mesh.handle(.signal(.offer(from: z, sd("2", ufrag: "zz02", certificate: 1))), now: at(5)))
                == [.applyRemoteOffer(z, sd("2", ufrag: "zz02", certificate: 1))])
        // ... and later renegotiations keep the new ufrag.
        #expect(acts(mesh.handle(.signal(.offer(from: z, sd("3", ufrag: "zz02", certificate: 1))), now: at(6)))
                == [.applyRemoteOffer(z, sd("3", ufrag: "zz02", certificate: 1))])
        // A new certificate is a new session: a fresh connection.
        #expect(acts(mesh.handle(.signal(.offer(from: z, sd("4", ufrag: "zz03", certificate: 2))), now: at(7))).first
                == .closeConnection(z, cause: "replaced by a new offer"))
    }

    @Test func consentLostRestartsIceOnceAndAFailureStillRetries() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a])), now: at(0))
        _ = mesh.handle(.connectionState(a, .connected), now: at(1))
        #expect(acts(mesh.handle(.connectionState(a, .disconnected), now: at(9))) == [.restartIce(a)])
        // Still disconnected (no new transition): nothing more.
        #expect(acts(mesh.handle(.connectionState(a, .disconnected), now: at(10))) == [])
        _ = mesh.handle(.connectionState(a, .failed), now: at(40))
        #expect(mesh.retries[a]?.attempt == 1, "the offerer still retries a connection the restart did not save")
    }

    /// The actions without the log lines.
    func acts(_ actions: [RoomAction]) -> [RoomAction] { actions.filter { if case .log = $0 { false } else { true } } }

    @Test func newcomerOffersToEveryoneAlreadyInTheRoom() {
        var mesh = Mesh()
        let out = acts(mesh.handle(.signal(.joined(you: z, others: [a, b, z, c])), now: at(0)))
        // Each offer carries SkyRTC's chat channel, opened by the offerer right after its connection.
        #expect(out == [.createConnection(a, role: .offerer), .openDataChannel(a, label: Mesh.channelLabel),
                        .createConnection(b, role: .offerer), .openDataChannel(b, label: Mesh.channelLabel),
                        .createConnection(c, role: .offerer), .openDataChannel(c, label: Mesh.channelLabel)])
        // SkyRTC's browser client leaves the label undefined, which WebIDL makes the string "undefined".
        #expect(Mesh.channelLabel == "undefined")
        #expect(mesh.openConnections == 3)
        // A later newcomer gets a connection that waits for its offer.
        let later = RemotePeerID("dddd")
        // It waits as the answerer: the channel comes from the offerer (DCEP), no `.openDataChannel` here.
        #expect(acts(mesh.handle(.signal(.newPeer(later)), now: at(1))) == [.createConnection(later, role: nil)])
        #expect(acts(mesh.handle(.signal(.offer(from: later, sd("o"))), now: at(1))) == [.applyRemoteOffer(later, sd("o"))])
        #expect(mesh.role(of: later) == .answerer)
    }

    @Test func aResumeWithTheSameIdKeepsTheConnectionsClosesWhoLeftAndOffersToWhoCame() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a, b])), now: at(0))
        _ = mesh.handle(.signal(.newPeer(c)), now: at(1))
        // Signaling came back with our id kept: b left meanwhile, d came (its offer went to the lost connection).
        let d = RemotePeerID("dddd")
        let out = acts(mesh.handle(.signal(.resumed(you: z, others: [a, c, d])), now: at(5)))
        #expect(out == [.closeConnection(b, cause: "left while signaling was down"),
                        .createConnection(d, role: .offerer), .openDataChannel(d, label: Mesh.channelLabel)])
        #expect(mesh.hasConnection(a) && mesh.hasConnection(c) && !mesh.hasConnection(b))
        // A new id is a new member: everything starts over (after `signalingLost`, as the session does).
        _ = mesh.handle(.signalingLost, now: at(6))
        #expect(acts(mesh.handle(.signal(.joined(you: b, others: [a])), now: at(7)))
                == [.createConnection(a, role: .offerer), .openDataChannel(a, label: Mesh.channelLabel)])
    }

    @Test func glareTheLargerIdKeepsItsOffer() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a])), now: at(0))
        // Their offer crosses ours: we are larger, we ignore theirs and keep waiting for the answer.
        #expect(acts(mesh.handle(.signal(.offer(from: a, sd("theirs"))), now: at(0.1))) == [])
        #expect(mesh.role(of: a) == .offerer)
        #expect(acts(mesh.handle(.signal(.answer(from: a, sd("ans"))), now: at(0.2))) == [.applyRemoteAnswer(a, sd("ans"))])
    }

    @Test func glareTheSmallerIdAnswers() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: a, others: [z])), now: at(0))
        let out = acts(mesh.handle(.signal(.offer(from: z, sd("theirs"))), now: at(0.1)))
        #expect(out == [.closeConnection(z, cause: "replaced by a new offer"), .createConnection(z, role: nil),
                        .applyRemoteOffer(z, sd("theirs"))])
        #expect(mesh.role(of: z) == .answerer)
    }

    @Test func failedOffererRetriesAfter1_2_4SecondsThenStaysFailed() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a])), now: at(0))
        var t = 10.0
        for delay in [1.0, 2.0, 4.0] {
            _ = mesh.handle(.connectionState(a, .failed), now: at(t))
            #expect(mesh.nextDeadline == at(t + delay))
            // Not before the deadline.
            #expect(acts(mesh.handle(.timer, now: at(t + delay - 0.001))) == [])
            let out = acts(mesh.handle(.timer, now: at(t + delay)))
            #expect(out == [.closeConnection(a, cause: "failed; offering again"), .createConnection(a, role: .offerer),
                            .openDataChannel(a, label: Mesh.channelLabel)])
            #expect(mesh.nextDeadline == nil)
            t += delay + 5
        }
        // The fourth failure: no more attempts; the connection stays (shown failed) until the peer leaves or rejoins.
        let out = mesh.handle(.connectionState(a, .failed), now: at(t))
        #expect(acts(out) == [])
        #expect(out.contains(.log("aaaa-sma: giving up after 3 new offers; stays failed")))
        #expect(mesh.nextDeadline == nil)
        #expect(mesh.hasConnection(a))
    }

    /// The driver could not create an awaited connection (no socket) and said so: the peer's offer still gets one.
    @Test func anOfferReplacesAConnectionThatCouldNotBeCreated() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: a, others: [])), now: at(0))
        #expect(acts(mesh.handle(.signal(.newPeer(b)), now: at(0))) == [.createConnection(b, role: nil)])
        #expect(acts(mesh.handle(.connectionState(b, .failed), now: at(0))) == [])
        #expect(mesh.nextDeadline == nil)   // we owe no offer: nothing to retry
        let out = acts(mesh.handle(.signal(.offer(from: b, sd("o"))), now: at(0.5)))
        #expect(out == [.closeConnection(b, cause: "replaced by a new offer"), .createConnection(b, role: nil),
                        .applyRemoteOffer(b, sd("o"))])
    }

    @Test func theAnswererDoesNotRetry() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: a, others: [])), now: at(0))
        _ = mesh.handle(.signal(.newPeer(b)), now: at(0))
        _ = mesh.handle(.signal(.offer(from: b, sd("o"))), now: at(0))
        _ = mesh.handle(.connectionState(b, .failed), now: at(1))
        #expect(mesh.nextDeadline == nil)
    }

    @Test func aConnectedRetryResetsTheCount() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a])), now: at(0))
        _ = mesh.handle(.connectionState(a, .failed), now: at(1))
        _ = mesh.handle(.timer, now: at(2))
        _ = mesh.handle(.connectionState(a, .connected), now: at(2.5))
        _ = mesh.handle(.connectionState(a, .failed), now: at(10))
        #expect(mesh.nextDeadline == at(11))   // 1 s again, not 2 s
    }

    @Test func aRejoinResetsTheRetries() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a])), now: at(0))
        var t = 0.0
        for delay in [1.0, 2.0, 4.0] {
            _ = mesh.handle(.connectionState(a, .failed), now: at(t))
            _ = mesh.handle(.timer, now: at(t + delay))
            t += delay
        }
        _ = mesh.handle(.connectionState(a, .failed), now: at(t))
        #expect(mesh.nextDeadline == nil)   // exhausted
        // The peer leaves and rejoins: it offers to us (it is the newcomer) and the count starts over for that offer.
        #expect(acts(mesh.handle(.signal(.removePeer(a)), now: at(t + 1))) == [.closeConnection(a, cause: "peer left the room")])
        _ = mesh.handle(.signal(.newPeer(a)), now: at(t + 2))
        _ = mesh.handle(.signal(.offer(from: a, sd("o"))), now: at(t + 2))
        #expect(mesh.role(of: a) == .answerer)
        // We rejoin instead (a new `_peers`): we offer, and a failure is retried after 1 s again.
        var fresh = Mesh()
        _ = fresh.handle(.signal(.joined(you: z, others: [a])), now: at(100))
        _ = fresh.handle(.connectionState(a, .failed), now: at(101))
        #expect(fresh.nextDeadline == at(102))
    }

    @Test func aPeerRemovedWhileARetryIsPendingCancelsIt() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a, b])), now: at(0))
        _ = mesh.handle(.connectionState(a, .failed), now: at(1))
        #expect(mesh.retryDeadline(of: a) == at(2))
        _ = mesh.handle(.signal(.removePeer(a)), now: at(1.5))
        #expect(mesh.retryDeadline(of: a) == nil)
        #expect(mesh.nextDeadline == nil)
        #expect(acts(mesh.handle(.timer, now: at(2))) == [])
        #expect(!mesh.hasConnection(a))
    }

    @Test func leaveClosesEverything() {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [a, b, c])), now: at(0))
        _ = mesh.handle(.connectionState(b, .failed), now: at(1))
        let out = acts(mesh.handle(.leave, now: at(1.5)))
        #expect(out == [.closeConnection(a, cause: "left the room"), .closeConnection(b, cause: "left the room"),
                        .closeConnection(c, cause: "left the room")])
        #expect(mesh.openConnections == 0)
        #expect(mesh.nextDeadline == nil)
    }

    @Test func signalsForUnknownPeers() throws {
        var mesh = Mesh()
        _ = mesh.handle(.signal(.joined(you: z, others: [])), now: at(0))
        // An answer to nothing we offered is dropped; a candidate before the offer makes the connection that buffers it.
        #expect(acts(mesh.handle(.signal(.answer(from: a, sd("x"))), now: at(0))) == [])
        let candidate = try IceCandidate(parsing: "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host")
        #expect(acts(mesh.handle(.signal(.candidate(from: a, candidate)), now: at(0)))
                == [.createConnection(a, role: nil), .addRemoteCandidate(a, candidate)])
        // Local signals of a connection already closed go nowhere.
        _ = mesh.handle(.signal(.removePeer(a)), now: at(0))
        #expect(acts(mesh.handle(.localSignal(.answer(to: a, sdp: "late")), now: at(0))) == [])
        #expect(acts(mesh.handle(.signal(.removePeer(b)), now: at(0))) == [])
    }

    @Test func openPeersAreBounded() {
        var mesh = Mesh(maxPeers: 2)
        let out = acts(mesh.handle(.signal(.joined(you: z, others: [a, b, c])), now: at(0)))
        #expect(out == [.createConnection(a, role: .offerer), .openDataChannel(a, label: Mesh.channelLabel),
                        .createConnection(b, role: .offerer), .openDataChannel(b, label: Mesh.channelLabel)])
        #expect(acts(mesh.handle(.signal(.offer(from: c, sd("o"))), now: at(0))) == [])
        #expect(Mesh().maxPeers == CallLimits.maxPeers)
    }
}
