import Foundation
import Testing
@testable import EngineTransport
@testable import Engine

/// conftui's transport against real peers over 127.0.0.1. Skipped when `make py-deps` has not filled `.venv`.
/// One `TransportSession` on a loopback socket facing a `PythonPeer`, with the steps every interop test shares.
enum InteropDriver {
    struct Setup {
        let peer: PythonPeer
        let session: TransportSession
        let loop: RealTimeLoop
        let candidates: [IceCandidate]
    }

    static func prepare(role: IceRole, profiles: [SrtpProfile], peer: PythonPeer) throws -> Setup {
        let socket = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
        let session = TransportSession(ice: .random(role: role), certificate: try DtlsCertificate(), srtpProfiles: profiles)
        let loop = RealTimeLoop()
        loop.add(session, socket: socket)
        var gathered: [IceCandidate] = []
        loop.onEvent = { _, e in if case .ice(.candidateGathered(let c)) = e { gathered.append(c) } }
        loop.feed(0, .command(.addLocalHost(socket.localAddress)))
        return Setup(peer: peer, session: session, loop: loop, candidates: gathered)
    }

    static func transport(_ s: Setup) -> LocalTransportParameters {
        LocalTransportParameters(iceUfrag: s.session.ice.localCredentials.ufrag, icePwd: s.session.ice.localCredentials.pwd,
                                 fingerprint: s.session.localFingerprint, candidates: s.candidates, endOfCandidates: true)
    }

    /// Applies the remote description: credentials, fingerprint, our DTLS role from `localSetup`, candidates.
    /// Only loopback candidates are used: tests never contact another address (Chromium also offers its
    /// other interfaces).
    static func applyRemote(_ s: Setup, _ remote: SessionDescription, localSetup: DtlsSetup) throws {
        let credentials = try #require(remote.iceCredentials(mediaIndex: 0))
        let fingerprint = try #require(remote.fingerprint(mediaIndex: 0))
        let role = try #require(DtlsEndpoint.Role(setup: localSetup))
        s.loop.feed(0, .command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                  fingerprint: fingerprint, localDtlsRole: role))))
        let loopback = remote.allCandidates.filter { $0.address.ip?.isLoopback == true }
        #expect(!loopback.isEmpty, "peer offered no loopback candidate: \(remote.allCandidates)")
        for candidate in loopback { s.loop.feed(0, .command(.addRemoteCandidate(candidate))) }
        if remote.media.contains(where: \.endOfCandidates) { s.loop.feed(0, .command(.endOfRemoteCandidates)) }
    }

    /// Sends 20 ms Opus silence frames (TOC 0xF8: CELT fullband 20 ms) until aiortc reports, then checks both ways.
    static func exchangeMedia(_ s: Setup, payloadType: PayloadType, ssrc: SSRC, expectedProfile: SrtpProfile?,
                              peerName: String) throws -> [String: Any] {
        // Generous bounds for a loaded 2-core machine; on an idle one this takes well under a second.
        let secured = s.loop.run(for: .seconds(20)) { s.session.isSecure }
        #expect(secured)
        if !secured {
            let ice = s.session.ice
            print("\(peerName) not secured: ice \(ice.state) \(ice.role), dtls \(String(describing: s.session.dtls?.state)), "
                  + "locals \(ice.localCandidates), remotes \(ice.remoteCandidates), "
                  + "pairs \(ice.pairs.map { "\($0.local)-\($0.remote) \($0.state) nominated=\($0.nominated)" })")
        }
        var seq: UInt16 = 0
        var report: [String: Any]?
        s.loop.run(for: .seconds(25), tick: {
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
        print("\(peerName) interop (\(s.session.ice.role)): \(String(describing: s.session.dtls?.keyingMaterial?.profile)), "
              + "received \(received.count) RTP, \(peerName) reported \(stats)")
        if let expectedProfile { #expect(s.session.dtls?.keyingMaterial?.profile == expectedProfile) }
        #expect(received.count >= 20, "aiortc's Opus packets reached us decrypted")
        #expect(received.allSatisfy { $0.count > 12 && $0[1] & 0x7F == payloadType.rawValue })
        #expect(s.session.rejectedPackets == 0)
        #expect(s.session.ice.state == .connected)
        #expect((stats["inbound"] as? Int ?? 0) >= 20, "\(peerName) received our SRTP")
        #expect(stats["connection"] as? String == "connected")
        return stats
    }
}

@Suite(.serialized, .enabled(if: PythonPeer.python(with: "aiortc") != nil, "needs aiortc in .venv (make py-deps)"))
struct AiortcInteropTests {
    func aiortc() throws -> PythonPeer {
        try PythonPeer(python: PythonPeer.python(with: "aiortc")!, script: PythonPeer.script("aiortc_sdp_peer.py"))
    }

    /// SDP both ways, ICE in both roles, DTLS in both roles, SRTP both directions with each profile.
    /// We offer (controlling, actpass); aiortc answers `active`, so we are the DTLS server.
    @Test(.timeLimit(.minutes(1)), arguments: [SrtpProfile.aeadAes128Gcm, .aes128CmHmacSha1_80])
    func weOfferAiortcAnswers(profile: SrtpProfile) throws {
        let s = try InteropDriver.prepare(role: .controlling, profiles: [profile], peer: try aiortc())
        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x1234_5678), cname: "conftui")
        let offer = SessionDescription.makeOffer(sessionID: "1", transport: InteropDriver.transport(s), audio: audio, video: nil)
        try s.peer.send(["mode": "answer", "sdp": offer.sdpText])
        let answer = try SessionDescription(parsing: try #require(s.peer.waitForLine(seconds: 20)?["sdp"] as? String))
        #expect(answer.setup(mediaIndex: 0) == .active)
        let opus = try #require(answer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        #expect(opus.rawValue == 111)   // our payload type comes back, as JSEP requires
        try InteropDriver.applyRemote(s, answer, localSetup: .passive)
        let stats = try InteropDriver.exchangeMedia(s, payloadType: opus, ssrc: audio.ssrc, expectedProfile: profile, peerName: "aiortc")
        #expect((stats["frames"] as? Int ?? 0) >= 20, "aiortc decoded our Opus")
    }

    /// aiortc offers (controlling, actpass, opus at its own PT 96); we answer `active`: ICE controlled, DTLS client.
    @Test(.timeLimit(.minutes(1)))
    func aiortcOffersWeAnswer() throws {
        let s = try InteropDriver.prepare(role: .controlled, profiles: [.aeadAes128Gcm, .aes128CmHmacSha1_80], peer: try aiortc())
        try s.peer.send(["mode": "offer"])
        let offer = try SessionDescription(parsing: try #require(s.peer.waitForLine(seconds: 20)?["sdp"] as? String))
        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x0ABC_DEF0), cname: "conftui")
        let answer = offer.makeAnswer(sessionID: "2", transport: InteropDriver.transport(s), audio: audio, video: nil)
        let opus = try #require(answer.media[0].payloadTypes.first)
        #expect(opus == offer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        #expect(answer.media[0].setup == .active)
        try s.peer.send(["sdp": answer.sdpText])
        try InteropDriver.applyRemote(s, offer, localSetup: .active)
        let stats = try InteropDriver.exchangeMedia(s, payloadType: opus, ssrc: audio.ssrc, expectedProfile: .aeadAes128Gcm,
                                                    peerName: "aiortc")
        #expect((stats["frames"] as? Int ?? 0) >= 20, "aiortc decoded our Opus")
    }
}

@Suite(.serialized, .enabled(if: PythonPeer.python(with: "websockets") != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                "needs Debian chromium and websockets in .venv (make deps)"))
struct ChromiumInteropTests {
    func chromium() throws -> PythonPeer {
        try PythonPeer(python: PythonPeer.python(with: "websockets")!, script: PythonPeer.script("chromium_sdp_peer.py"))
    }

    /// We offer audio (controlling, actpass); headless Chromium answers with its fake microphone, `active`, so it
    /// is the DTLS client and picks among the SRTP profiles we allow (docs/webrtc-interop.md §4).
    @Test(.timeLimit(.minutes(1)), arguments: [[SrtpProfile.aeadAes128Gcm, .aes128CmHmacSha1_80], [.aes128CmHmacSha1_80]])
    func weOfferChromiumAnswers(profiles: [SrtpProfile]) throws {
        let s = try InteropDriver.prepare(role: .controlling, profiles: profiles, peer: try chromium())
        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x2345_6789), cname: "conftui")
        let offer = SessionDescription.makeOffer(sessionID: "3", transport: InteropDriver.transport(s), audio: audio, video: nil)
        try s.peer.send(["mode": "answer", "sdp": offer.sdpText])
        let answer = try SessionDescription(parsing: try #require(s.peer.waitForLine(seconds: 30)?["sdp"] as? String))
        #expect(answer.setup(mediaIndex: 0) == .active)
        let opus = try #require(answer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        #expect(opus.rawValue == 111)
        #expect(answer.bundleGroup?.mids.first == "0")
        try InteropDriver.applyRemote(s, answer, localSetup: .passive)
        let stats = try InteropDriver.exchangeMedia(s, payloadType: opus, ssrc: audio.ssrc,
                                                    expectedProfile: profiles.count == 1 ? profiles[0] : nil, peerName: "chromium")
        #expect((stats["dtls"] as? String)?.hasPrefix("connected") == true)
    }

    /// Chromium offers (controlling, actpass, its full codec list); we answer `active` with its Opus payload type:
    /// ICE controlled, DTLS client.
    @Test(.timeLimit(.minutes(1)))
    func chromiumOffersWeAnswer() throws {
        let s = try InteropDriver.prepare(role: .controlled, profiles: [.aeadAes128Gcm, .aes128CmHmacSha1_80], peer: try chromium())
        try s.peer.send(["mode": "offer"])
        let offer = try SessionDescription(parsing: try #require(s.peer.waitForLine(seconds: 30)?["sdp"] as? String))
        let audio = LocalTrack(kind: .audio, streamID: "conftui", trackID: "audio0", ssrc: SSRC(0x3456_789A), cname: "conftui")
        let answer = offer.makeAnswer(sessionID: "4", transport: InteropDriver.transport(s), audio: audio, video: nil)
        let opus = try #require(answer.media[0].payloadTypes.first)
        #expect(opus == offer.media[0].payloadType(encoding: "opus", clockRate: 48000, channels: 2))
        try s.peer.send(["sdp": answer.sdpText])
        try InteropDriver.applyRemote(s, offer, localSetup: .active)
        let stats = try InteropDriver.exchangeMedia(s, payloadType: opus, ssrc: audio.ssrc, expectedProfile: nil, peerName: "chromium")
        #expect((stats["dtls"] as? String)?.hasPrefix("connected") == true)
    }
}
