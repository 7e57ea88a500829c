import Testing
import EngineTestSupport
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// A subscription shaped like an SFU's (Janus VideoRoom, for one): one BUNDLE group of 16 send-only sections, audio
/// and video for 8 participants, each with its `a=ssrc` and the MID header extension, offered by a scripted server
/// (a bare `TransportSession` and one send stream per section) on the virtual network. conftui answers every section
/// and each stream it receives is the right participant's.
@Suite struct MultistreamOfferTests {
    static let participants = 8

    /// The scripted server: its transport, the offer it made, and a send stream per section.
    final class ScriptedSFU {
        let address = TransportAddress("10.0.0.9:7000")!
        let transport: TransportSession
        var video: [String: VideoSendStream] = [:]
        var audio: [String: AudioSendStream] = [:]
        var offer = SessionDescription(origin: SdpOrigin(sessionID: "4242", sessionVersion: "1"))

        init() throws {
            transport = TransportSession(ice: .random(role: .controlling), certificate: try DtlsCertificate())
        }

        /// Participant `p`'s audio is mid 2p and its video mid 2p + 1, as an SFU lists them.
        func makeOffer(now: TransportTime) -> [Transmit] {
            let out = transport.handle(.command(.addLocalHost(address)), now: now)
            let candidates = out.events.compactMap { if case .ice(.candidateGathered(let c)) = $0 { c } else { nil } }
            let parameters = LocalTransportParameters(iceUfrag: transport.ice.localCredentials.ufrag, icePwd: transport.ice.localCredentials.pwd,
                                                      fingerprint: transport.localFingerprint, candidates: candidates)
            for p in 0..<MultistreamOfferTests.participants {
                for kind in [MediaKind.audio, .video] {
                    let mid = String(2 * p + (kind == .audio ? 0 : 1))
                    let ssrc = SSRC(UInt32(1000 + 10 * p + (kind == .audio ? 0 : 1)))
                    var section = MediaDescription.offering(kind)
                    section.mid = Mid(rawValue: mid)
                    section.direction = .sendonly
                    section.extmaps = [Extmap(id: 1, uri: Extmap.midURI)]
                    section.applyTransport(parameters, setup: .actpass)
                    section.ssrcs = [SsrcAttribute(ssrc: ssrc, name: "cname", value: "participant-\(p)")]
                    offer.media.append(section)
                    let extensions = RTPHeaderExtensions.elements([RTPHeaderExtensionElement(id: 1, data: Array(mid.utf8))])
                    if kind == .video {
                        var c = VideoSendStream.Configuration(ssrc: ssrc, payloadType: SupportedCodecs.vp8.defaultPT, cname: "sfu")
                        c.headerExtensions = extensions
                        video[mid] = VideoSendStream(configuration: c)
                    } else {
                        var s = AudioSendStream(ssrc: ssrc, payloadType: SupportedCodecs.opus.defaultPT, cname: "sfu")
                        s.headerExtensions = extensions
                        audio[mid] = s
                    }
                }
            }
            offer.groups = [SdpGroup(semantics: "BUNDLE", mids: offer.media.compactMap(\.mid))]
            return out.transmits
        }

        /// Frame `counter` of every participant's video (a keyframe first, then deltas: a VP8 payload header, RFC
        /// 7741 §4.3, and the participant's marker), through the transport.
        func sendVideo(counter: UInt32, now: TransportTime) -> TransportSession.Output {
            var out = TransportSession.Output()
            for mid in video.keys.sorted() {
                let p = (Int(mid)! - 1) / 2
                let header: [UInt8] = counter == 1 ? [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a] : [0x11, 0x02, 0x00, 0x00, 0x00, 0x00]
                let frame = EncodedVideoFrame(data: header + MultistreamOfferTests.marker(p, counter, size: 1_800),
                                              isKeyframe: counter == 1, timestamp: now.seconds)
                for packet in video[mid]!.send(frame, now: now) {
                    let o = transport.handle(.command(.sendRTP(packet)), now: now)
                    out.transmits += o.transmits
                    out.deadline = o.deadline
                }
            }
            return out
        }

        /// One 20 ms audio packet of every participant, marked.
        func sendAudio(counter: UInt32, now: TransportTime) -> TransportSession.Output {
            var out = TransportSession.Output()
            for mid in audio.keys.sorted() {
                let p = Int(mid)! / 2
                if let packet = audio[mid]!.send(opusPacket: MultistreamOfferTests.marker(p, counter, size: 60), isDTX: false, now: now) {
                    let o = transport.handle(.command(.sendRTP(packet)), now: now)
                    out.transmits += o.transmits
                    out.deadline = o.deadline
                }
            }
            return out
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func sixteenReceiveOnlySectionsAreAnsweredAndEachStreamIsItsParticipants() throws {
        let sfu = try ScriptedSFU()
        let pcAddress = TransportAddress("10.0.0.2:6000")!
        let pc = try PeerConnection(configuration: .random(localHosts: [pcAddress]))
        var network = NetworkEmulator<Transmit>(LinkConditions(delay: .milliseconds(10)), seed: 5)
        var now = TransportTime.zero
        var pcDeadline: TransportTime?, sfuDeadline: TransportTime?
        var events: [PeerConnection.Event] = []
        func fromPC(_ out: PeerConnection.Output) {
            for t in out.transmits { network.send(t, .bToA, now: now) }
            pcDeadline = out.deadline
            events += out.events
        }
        func fromSFU(_ out: TransportSession.Output) {
            for t in out.transmits { network.send(t, .aToB, now: now) }
            sfuDeadline = out.deadline
        }

        for t in sfu.makeOffer(now: now) { network.send(t, .aToB, now: now) }
        let offer = try SessionDescription(parsing: sfu.offer.sdpText)
        fromPC(pc.handle(.command(.applyRemoteOffer(offer)), now: now))
        let answer = try #require(pc.localDescription)
        // Every section accepted, receive-only, in the offer's order and BUNDLE group.
        #expect(answer.media.count == 16 && answer.media.allSatisfy { !$0.isRejected && $0.direction == .recvonly })
        let mids: [String] = (0..<16).map { String($0) }
        #expect(answer.media.compactMap { $0.mid?.rawValue } == mids)
        #expect(answer.bundleGroup?.mids.count == 16)
        let setup = try #require(answer.media.first?.setup)
        let credentials = try #require(answer.iceCredentials(mediaIndex: 0))
        fromSFU(sfu.transport.handle(.command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                                fingerprint: try #require(answer.fingerprint(mediaIndex: 0)),
                                                                localDtlsRole: setup == .active ? .server : .client))), now: now))
        for c in answer.allCandidates { fromSFU(sfu.transport.handle(.command(.addRemoteCandidate(c)), now: now)) }

        /// Runs the virtual clock to `end`; once the transport is secure, every participant sends a marked frame every
        /// 66 ms and an audio packet every 20 ms.
        var nextVideo = now, nextAudio = now, counter: UInt32 = 0
        func run(until end: TransportTime) {
            while now < end {
                let media = sfu.transport.isSecure ? [nextVideo, nextAudio] : []
                now = ([network.nextDelivery, pcDeadline, sfuDeadline, end] + media).compactMap { $0 }.min()!
                for t in network.deliver(now: now) {
                    if t.to == pcAddress { fromPC(pc.handle(.datagram(from: t.from, to: t.to, bytes: t.bytes), now: now)) }
                    if t.to == sfu.address { fromSFU(sfu.transport.handle(.datagram(from: t.from, to: t.to, bytes: t.bytes), now: now)) }
                }
                if pcDeadline.map({ $0 <= now }) ?? false { fromPC(pc.handle(.timeout, now: now)) }
                if sfuDeadline.map({ $0 <= now }) ?? false { fromSFU(sfu.transport.handle(.timeout, now: now)) }
                guard sfu.transport.isSecure else { continue }
                if now >= nextVideo {
                    nextVideo = now + .milliseconds(66)
                    counter += 1
                    fromSFU(sfu.sendVideo(counter: counter, now: now))
                }
                if now >= nextAudio {
                    nextAudio = now + .milliseconds(20)
                    fromSFU(sfu.sendAudio(counter: counter, now: now))
                }
            }
        }
        run(until: now + .seconds(5))
        #expect(pc.state == .connected)

        // Each section's frames and audio are its own participant's, and every participant got through.
        var videoByMid: [String: Int] = [:], audioByMid: [String: Int] = [:], wrong: [String] = []
        for event in events {
            switch event {
            case .videoFrame(let mid, let frame):
                videoByMid[mid, default: 0] += 1
                if Self.participant(in: frame.data.dropFirst(6)) != (Int(mid)! - 1) / 2 { wrong.append("video \(mid)") }
            case .audio(let mid, .packet(let bytes)):
                audioByMid[mid, default: 0] += 1
                if Self.participant(in: bytes[...]) != Int(mid)! / 2 { wrong.append("audio \(mid)") }
            default: break
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        let videoMids: [String] = (0..<8).map { String(2 * $0 + 1) }, audioMids: [String] = (0..<8).map { String(2 * $0) }
        #expect(Set(videoByMid.keys) == Set(videoMids), "\(videoByMid)")
        #expect(Set(audioByMid.keys) == Set(audioMids), "\(audioByMid)")
        // About 4 s of media each: 15 frames and 50 packets a second.
        #expect(videoByMid.values.allSatisfy { $0 >= 40 }, "\(videoByMid)")
        #expect(audioByMid.values.allSatisfy { $0 >= 150 }, "\(audioByMid)")
        let stats = pc.stats(now: now)
        #expect(stats.sections.count == 16 && stats.sections.allSatisfy { $0.receives && !$0.sends && $0.packetsReceived > 0 })
    }

    static func marker(_ participant: Int, _ counter: UInt32, size: Int) -> [UInt8] {
        let bytes = [0xC0, UInt8(participant)] + withUnsafeBytes(of: counter.bigEndian, Array.init)
        return bytes + [UInt8](repeating: UInt8(participant), count: max(0, size - bytes.count))
    }

    static func participant(in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 2, bytes.first == 0xC0 else { return nil }
        return Int(bytes[bytes.startIndex + 1])
    }
}
