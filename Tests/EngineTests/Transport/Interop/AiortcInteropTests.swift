import Testing
@testable import Engine

/// Our offer, aiortc's answer, then ICE (we control, aiortc is controlled), DTLS (aiortc answers `active`, so we are
/// the DTLS server) and SRTP both ways over 127.0.0.1. Skipped when `make py-deps` has not installed aiortc.
@Suite struct AiortcInteropTests {
    @Test(.enabled(if: AiortcPeer.python != nil, "needs aiortc in .venv (make py-deps)"), .timeLimit(.minutes(1)))
    func aiortcAnswersAndExchangesSrtp() throws {
        let peer = try AiortcPeer(python: AiortcPeer.python!)
        let socket = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
        let session = TransportSession(ice: .random(role: .controlling), certificate: try DtlsCertificate())
        let loop = RealTimeLoop()
        loop.add(session, socket: socket)
        var gathered: [IceCandidate] = []
        loop.onEvent = { _, e in if case .ice(.candidateGathered(let c)) = e { gathered.append(c) } }
        loop.feed(0, .command(.addLocalHost(socket.localAddress)))

        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x1234_5678), cname: "conftui")
        let offer = SessionDescription.makeOffer(
            sessionID: "1", transport: LocalTransportParameters(iceUfrag: session.ice.localCredentials.ufrag,
                                                              icePwd: session.ice.localCredentials.pwd,
                                                              fingerprint: session.localFingerprint,
                                                              candidates: gathered, endOfCandidates: true),
            audio: audio, video: nil)
        try peer.send(["sdp": offer.sdpText])
        let answerLine = try #require(peer.waitForLine(seconds: 20)?["sdp"] as? String)
        let answer = try SessionDescription(parsing: answerLine)

        // What aiortc answered, checked on the way.
        let setup = try #require(answer.setup(mediaIndex: 0))
        #expect(setup == .active)
        let credentials = try #require(answer.iceCredentials(mediaIndex: 0))
        let fingerprint = try #require(answer.fingerprint(mediaIndex: 0))
        let opus = try #require(answer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        #expect(opus.rawValue == 111)   // our payload type, as JSEP requires
        #expect(!answer.allCandidates.isEmpty)

        loop.feed(0, .command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                fingerprint: fingerprint, localDtlsRole: DtlsEndpoint.Role(setup: setup.answer)!))))
        for candidate in answer.allCandidates { loop.feed(0, .command(.addRemoteCandidate(candidate))) }

        #expect(loop.run(for: .seconds(10)) { session.isSecure })
        // 20 ms Opus silence frames (TOC 0xF8: CELT FB 20 ms) to aiortc, while collecting what it sends.
        var seq: UInt16 = 0
        var report: [String: Any]?
        loop.run(for: .seconds(12), tick: {
            guard session.isSecure else { return }
            seq &+= 1
            var packet: [UInt8] = [0x80, opus.rawValue]
            packet.appendBE(seq)
            packet.appendBE(UInt32(seq) * 960)
            packet.appendBE(audio.ssrc.rawValue)
            loop.feed(0, .command(.sendRTP(packet + [0xF8, 0xFF, 0xFE])))
        }) {
            report = report ?? peer.poll()
            return report != nil
        }
        let received = loop.events[0].compactMap { if case .rtp(let p) = $0 { p } else { nil } }
        #expect(received.count >= 20, "aiortc's Opus packets reached us decrypted")
        #expect(received.allSatisfy { $0.count > 12 && $0[1] & 0x7F == opus.rawValue })
        #expect(session.rejectedPackets == 0)
        #expect(session.ice.state == .connected)
        let stats = try #require(report)
        let profile = session.dtls?.keyingMaterial?.profile
        print("aiortc interop: profile \(String(describing: profile)), we received \(received.count) RTP, aiortc reported \(stats)")
        #expect((stats["inbound"] as? Int ?? 0) >= 20, "aiortc received our SRTP: \(stats)")
        #expect((stats["frames"] as? Int ?? 0) >= 20, "aiortc decoded our Opus: \(stats)")
        #expect(stats["connection"] as? String == "connected")
    }
}
