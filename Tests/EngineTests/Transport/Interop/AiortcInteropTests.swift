import Testing
@testable import Engine

/// conftui against a real aiortc 1.x over 127.0.0.1: SDP both ways, ICE in both roles, DTLS in both roles, SRTP both
/// directions with each profile. Skipped when `make py-deps` has not installed aiortc into `.venv`.
@Suite(.enabled(if: AiortcPeer.python != nil, "needs aiortc in .venv (make py-deps)"))
struct AiortcInteropTests {
    struct Setup {
        let peer: AiortcPeer
        let session: TransportSession
        let loop: RealTimeLoop
        let candidates: [IceCandidate]
    }

    func prepare(role: IceRole, profiles: [SrtpProfile]) throws -> Setup {
        let peer = try AiortcPeer(python: AiortcPeer.python!)
        let socket = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
        let session = TransportSession(ice: .random(role: role), certificate: try DtlsCertificate(), srtpProfiles: profiles)
        let loop = RealTimeLoop()
        loop.add(session, socket: socket)
        var gathered: [IceCandidate] = []
        loop.onEvent = { _, e in if case .ice(.candidateGathered(let c)) = e { gathered.append(c) } }
        loop.feed(0, .command(.addLocalHost(socket.localAddress)))
        return Setup(peer: peer, session: session, loop: loop, candidates: gathered)
    }

    func transport(_ s: Setup) -> LocalTransportParameters {
        LocalTransportParameters(iceUfrag: s.session.ice.localCredentials.ufrag, icePwd: s.session.ice.localCredentials.pwd,
                                 fingerprint: s.session.localFingerprint, candidates: s.candidates, endOfCandidates: true)
    }

    /// Applies the remote description: credentials, fingerprint, our DTLS role from `localSetup`, candidates.
    func applyRemote(_ s: Setup, _ remote: SessionDescription, localSetup: DtlsSetup) throws {
        let credentials = try #require(remote.iceCredentials(mediaIndex: 0))
        let fingerprint = try #require(remote.fingerprint(mediaIndex: 0))
        let role = try #require(DtlsEndpoint.Role(setup: localSetup))
        s.loop.feed(0, .command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                  fingerprint: fingerprint, localDtlsRole: role))))
        #expect(!remote.allCandidates.isEmpty)
        for candidate in remote.allCandidates { s.loop.feed(0, .command(.addRemoteCandidate(candidate))) }
    }

    /// Sends 20 ms Opus silence frames (TOC 0xF8: CELT fullband 20 ms) until aiortc reports, then checks both ways.
    func exchangeMedia(_ s: Setup, payloadType: PayloadType, ssrc: SSRC, expectedProfile: SrtpProfile) throws {
        #expect(s.loop.run(for: .seconds(10)) { s.session.isSecure })
        var seq: UInt16 = 0
        var report: [String: Any]?
        s.loop.run(for: .seconds(15), tick: {
            guard s.session.isSecure else { return }
            seq &+= 1
            var packet: [UInt8] = [0x80, payloadType.rawValue]
            packet.appendBE(seq)
            packet.appendBE(UInt32(seq) * 960)
            packet.appendBE(ssrc.rawValue)
            s.loop.feed(0, .command(.sendRTP(packet + [0xF8, 0xFF, 0xFE])))
        }) {
            report = report ?? s.peer.poll()
            return report != nil
        }
        let received = s.loop.events[0].compactMap { if case .rtp(let p) = $0 { p } else { nil } }
        let stats = try #require(report)
        print("aiortc interop (\(s.session.ice.role)): \(String(describing: s.session.dtls?.keyingMaterial?.profile)), "
              + "received \(received.count) RTP, aiortc reported \(stats)")
        #expect(s.session.dtls?.keyingMaterial?.profile == expectedProfile)
        #expect(received.count >= 20, "aiortc's Opus packets reached us decrypted")
        #expect(received.allSatisfy { $0.count > 12 && $0[1] & 0x7F == payloadType.rawValue })
        #expect(s.session.rejectedPackets == 0)
        #expect(s.session.ice.state == .connected)
        #expect((stats["inbound"] as? Int ?? 0) >= 20, "aiortc received our SRTP")
        #expect((stats["frames"] as? Int ?? 0) >= 20, "aiortc decoded our Opus")
        #expect(stats["connection"] as? String == "connected")
    }

    /// We offer (controlling, actpass); aiortc answers `active`, so we are the DTLS server.
    @Test(.timeLimit(.minutes(1)), arguments: [SrtpProfile.aeadAes128Gcm, .aes128CmHmacSha1_80])
    func weOfferAiortcAnswers(profile: SrtpProfile) throws {
        let s = try prepare(role: .controlling, profiles: [profile])
        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x1234_5678), cname: "conftui")
        let offer = SessionDescription.makeOffer(sessionID: "1", transport: transport(s), audio: audio, video: nil)
        try s.peer.send(["mode": "answer", "sdp": offer.sdpText])
        let answer = try SessionDescription(parsing: try #require(s.peer.waitForLine(seconds: 20)?["sdp"] as? String))
        #expect(answer.setup(mediaIndex: 0) == .active)
        let opus = try #require(answer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        #expect(opus.rawValue == 111)   // our payload type comes back, as JSEP requires
        try applyRemote(s, answer, localSetup: .passive)
        try exchangeMedia(s, payloadType: opus, ssrc: audio.ssrc, expectedProfile: profile)
    }

    /// aiortc offers (controlling, actpass, opus at its own PT 96); we answer `active`: ICE controlled, DTLS client.
    @Test(.timeLimit(.minutes(1)))
    func aiortcOffersWeAnswer() throws {
        let s = try prepare(role: .controlled, profiles: [.aeadAes128Gcm, .aes128CmHmacSha1_80])
        try s.peer.send(["mode": "offer"])
        let offer = try SessionDescription(parsing: try #require(s.peer.waitForLine(seconds: 20)?["sdp"] as? String))
        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x0ABC_DEF0), cname: "conftui")
        let answer = offer.makeAnswer(sessionID: "2", transport: transport(s), audio: audio, video: nil)
        let opus = try #require(answer.media[0].payloadTypes.first)
        #expect(opus == offer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        #expect(answer.media[0].setup == .active)
        try s.peer.send(["sdp": answer.sdpText])
        try applyRemote(s, offer, localSetup: .active)
        try exchangeMedia(s, payloadType: opus, ssrc: audio.ssrc, expectedProfile: .aeadAes128Gcm)
    }
}
