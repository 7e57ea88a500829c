import Testing
import EngineTestSupport
@testable import Engine
@testable import EngineRTP
@testable import EngineTransport

/// The forwarding server's policy (`SfuRoom`) on its own, then a `CallCore` with it against a scripted server whose
/// subscription carries eight participants: the participants the core reports are the server's feeds, each section's
/// media goes to its owner, and a feed taken out of the map closes as a participant while the connection stays.
@Suite struct SfuRoomTests {
    static let t0 = TransportTime.zero
    let pub = SfuRoom.publisher, sub = SfuRoom.subscriber

    static func offer(ufrag: String) throws -> SessionDescription {
        try SessionDescription(parsing: """
            v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n\
            m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=sendonly\r\na=ice-ufrag:\(ufrag)\r\n\
            a=ice-pwd:0123456789012345678901\r\na=fingerprint:sha-256 \(Array(repeating: "AB", count: 32).joined(separator: ":"))\r\n\
            a=setup:actpass\r\na=rtcp-mux\r\na=rtpmap:96 VP8/90000\r\n
            """)
    }

    @Test func joiningPublishesOnASendOnlyConnectionOfNobody() {
        var room = SfuRoom()
        let out = room.handle(.signal(.joined(you: RemotePeerID("4242"), others: [])), now: Self.t0)
        #expect(out.contains(.createConnection(pub, role: .offerer, media: .sendOnly, participants: .bySection)))
        // Chat goes out on the publication, once for everyone.
        #expect(out.contains(.openDataChannel(pub, label: SfuRoom.chatLabel)))
        #expect(room.you == RemotePeerID("4242"))
        // Its offer goes out; a second join (signaling back) does not publish twice.
        let offer = CallSignalOut.offer(to: pub, sdp: "v=0")
        #expect(room.handle(.localSignal(offer), now: Self.t0) == [.send(offer)])
        #expect(!room.handle(.signal(.joined(you: RemotePeerID("4242"), others: [])), now: Self.t0).contains { if case .createConnection = $0 { true } else { false } })
    }

    @Test func theServersOffersMakeThenRenegotiateTheSubscriptionWithItsSectionMap() throws {
        var room = SfuRoom()
        _ = room.handle(.signal(.joined(you: RemotePeerID("1"), others: [])), now: Self.t0)
        let owners = ["0": RemotePeerID("7"), "1": RemotePeerID("7")]
        #expect(room.handle(.signal(.sections(of: sub, owners: owners)), now: Self.t0).isEmpty)
        let first = try Self.offer(ufrag: "aaaa")
        #expect(room.handle(.signal(.offer(from: sub, first)), now: Self.t0)
                == [.createConnection(sub, role: nil, media: .receiveOnly, participants: .bySection),
                    .assignSections(sub, owners: owners), .openDataChannel(sub, label: SfuRoom.chatLabel), .applyRemoteOffer(sub, first)])
        // An update: the map first, then the offer on the same ICE session renegotiates the running connection.
        let more = owners.merging(["2": RemotePeerID("9")]) { $1 }
        #expect(room.handle(.signal(.sections(of: sub, owners: more)), now: Self.t0) == [.assignSections(sub, owners: more)])
        let second = try Self.offer(ufrag: "aaaa")
        #expect(room.handle(.signal(.offer(from: sub, second)), now: Self.t0) == [.log("subscription renegotiated"), .applyRemoteOffer(sub, second)])
        // New ICE credentials: a fresh connection, with the map it needs.
        let restart = try Self.offer(ufrag: "bbbb")
        #expect(room.handle(.signal(.offer(from: sub, restart)), now: Self.t0)
                == [.closeConnection(sub, cause: "replaced by a new offer"),
                    .createConnection(sub, role: nil, media: .receiveOnly, participants: .bySection),
                    .assignSections(sub, owners: more), .openDataChannel(sub, label: SfuRoom.chatLabel), .applyRemoteOffer(sub, restart)])
        // Offers for anything else are not ours to answer.
        #expect(room.handle(.signal(.offer(from: RemotePeerID("7"), first)), now: Self.t0).allSatisfy { if case .log = $0 { true } else { false } })
    }

    @Test func aFailedPublicationIsOfferedAgainAfterOneTwoAndFourSeconds() {
        var room = SfuRoom()
        _ = room.handle(.signal(.joined(you: RemotePeerID("1"), others: [])), now: Self.t0)
        var now = Self.t0
        for delay in [1, 2, 4] {
            _ = room.handle(.connectionState(pub, .failed), now: now)
            #expect(room.nextDeadline == now + .seconds(delay))
            now = now + .seconds(delay)
            #expect(room.handle(.timer, now: now) == [.closeConnection(pub, cause: "failed; publishing again"),
                                                      .createConnection(pub, role: .offerer, media: .sendOnly, participants: .bySection),
                                                      .openDataChannel(pub, label: SfuRoom.chatLabel)])
        }
        let last = room.handle(.connectionState(pub, .failed), now: now)
        #expect(room.nextDeadline == nil && last.contains { if case .log(let t) = $0 { t.contains("giving up") } else { false } })
        #expect(room.handle(.leave, now: now) == [.closeConnection(pub, cause: "left the room")])
    }

    /// The whole core: eight participants on one subscription (audio mid 2p, video mid 2p + 1, feed "10p").
    @Test(.timeLimit(.minutes(1)))
    func aSubscriptionsSectionsAreTheirFeedsParticipants() throws {
        let sfu = try MultistreamOfferTests.ScriptedSFU()
        let core = CallCore(policy: SfuRoom())
        var network = NetworkEmulator<Transmit>(LinkConditions(delay: .milliseconds(10)), seed: 11)
        var now = TransportTime.zero
        var coreDeadline: TransportTime?, sfuDeadline: TransportTime?
        var effects: [CallCore.Effect] = []
        var port: UInt16 = 6000
        func fromCore(_ out: CallCore.Output) {
            for t in out.transmits { network.send(t, .bToA, now: now) }
            coreDeadline = out.deadline
            for effect in out.effects {
                effects.append(effect)
                if case .openSockets(let id) = effect {
                    port += 1
                    fromCore(core.handle(.socketsOpened(id, [TransportAddress("10.0.0.2:\(port)")!]), now: now))
                }
            }
        }
        func fromSFU(_ out: TransportSession.Output) {
            for t in out.transmits { network.send(t, .aToB, now: now) }
            if out.deadline != nil { sfuDeadline = out.deadline }
        }
        func owner(_ mid: String) -> RemotePeerID { RemotePeerID("10\(Int(mid)! / 2)") }

        fromCore(core.handle(.signal(.joined(you: RemotePeerID("1"), others: [])), now: now))
        #expect(effects.contains { if case .signal(.offer(let to, _)) = $0 { to == pub } else { false } })
        #expect(!effects.contains { if case .participantOpened = $0 { true } else { false } }, "the publication is nobody's")

        for t in sfu.makeOffer(now: now) { network.send(t, .aToB, now: now) }
        let owners = Dictionary(uniqueKeysWithValues: sfu.offer.media.compactMap(\.mid?.rawValue).map { ($0, owner($0)) })
        fromCore(core.handle(.signal(.sections(of: sub, owners: owners)), now: now))
        fromCore(core.handle(.signal(.offer(from: sub, sdp: sfu.offer.sdpText)), now: now))
        let answerText = try #require(effects.lazy.compactMap { if case .signal(.answer(let to, let sdp)) = $0, to == self.sub { sdp } else { nil } }.first)
        let answer = try SessionDescription(parsing: answerText)
        let opened = effects.compactMap { if case .participantOpened(let p) = $0 { p } else { nil } }
        #expect(opened == (0..<8).map { RemotePeerID("10\($0)") }, "\(opened)")
        let credentials = try #require(answer.iceCredentials(mediaIndex: 0))
        fromSFU(sfu.transport.handle(.command(.setRemote(.init(credentials: IceCredentials(ufrag: credentials.ufrag, pwd: credentials.pwd),
                                                                fingerprint: try #require(answer.fingerprint(mediaIndex: 0)),
                                                                localDtlsRole: answer.media.first?.setup == .active ? .server : .client))), now: now))
        for c in answer.allCandidates { fromSFU(sfu.transport.handle(.command(.addRemoteCandidate(c)), now: now)) }

        var nextVideo = now, nextAudio = now, counter: UInt32 = 0
        func run(for duration: Duration) {
            let end = now + duration
            while now < end {
                let media = sfu.transport.isSecure ? [nextVideo, nextAudio] : []
                now = ([network.nextDelivery, coreDeadline, sfuDeadline, end] + media).compactMap { $0 }.min()!
                for t in network.deliver(now: now) {
                    if t.to == sfu.address { fromSFU(sfu.transport.handle(.datagram(from: t.from, to: t.to, bytes: t.bytes), now: now)) }
                    else { fromCore(core.handle(.datagram(local: t.to, from: t.from, bytes: t.bytes, arrivedAt: now), now: now)) }
                }
                if coreDeadline.map({ $0 <= now }) ?? false { coreDeadline = nil; fromCore(core.handle(.timeout, now: now)) }
                if sfuDeadline.map({ $0 <= now }) ?? false { sfuDeadline = nil; fromSFU(sfu.transport.handle(.timeout, now: now)) }
                guard sfu.transport.isSecure else { continue }
                if now >= nextVideo { nextVideo = now + .milliseconds(66); counter += 1; fromSFU(sfu.sendVideo(counter: counter, now: now)) }
                if now >= nextAudio { nextAudio = now + .milliseconds(20); fromSFU(sfu.sendAudio(counter: counter, now: now)) }
            }
        }
        run(for: .seconds(4))
        #expect(core.connection(of: sub)?.state == .connected)

        // Every decode is its section owner's, every feed got its pictures and voice, and each feed was told its
        // one video section and the connection's state.
        var video: [RemotePeerID: Int] = [:], audio: [RemotePeerID: Int] = [:], wrong: [String] = []
        var streams: [RemotePeerID: [String]] = [:], connected: Set<RemotePeerID> = []
        for effect in effects {
            switch effect {
            case .decodeVideo(let p, let mid, let frame):
                video[p, default: 0] += 1
                if p != owner(mid) || MultistreamOfferTests.participant(in: frame.data.dropFirst(6)).map({ RemotePeerID("10\($0)") }) != p { wrong.append("video \(mid) as \(p)") }
            case .decodeAudio(let p, let mid, _):
                audio[p, default: 0] += 1
                if p != owner(mid) { wrong.append("audio \(mid) as \(p)") }
            case .event(.videoStreams(let p, let mids)): streams[p] = mids
            case .event(.peerState(let p, .connected, _)): connected.insert(p)
            case .event(.peerState(let p, _, _)) where p == sub || p == pub: wrong.append("state of connection \(p)")
            default: break
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        #expect(video.count == 8 && video.values.allSatisfy { $0 >= 30 }, "\(video)")
        #expect(audio.count == 8 && audio.values.allSatisfy { $0 >= 100 }, "\(audio)")
        #expect(streams == Dictionary(uniqueKeysWithValues: (0..<8).map { (RemotePeerID("10\($0)"), [String(2 * $0 + 1)]) }), "\(streams)")
        #expect(connected == Set(opened))
        #expect(Set(core.summaries(now: now).keys) == Set(opened))

        // Feed 103 leaves the map (its sections stay, as Janus keeps them until its next offer): it closes as a
        // participant, its picture goes, nothing of it is decoded any more; the others go on.
        var fewer = owners
        fewer["6"] = nil; fewer["7"] = nil
        effects = []
        fromCore(core.handle(.signal(.sections(of: sub, owners: fewer)), now: now))
        // Its summary says it left, and when: the subscription it came on is still connected.
        let left = effects.compactMap { if case .participantClosed(let p, let s) = $0, p == RemotePeerID("103") { s } else { nil } }
        #expect(left.count == 1 && left.first?.leftAt == now.seconds && left.first?.transport.state == .connected)
        #expect(effects.contains { if case .event(.videoStreams(let p, let mids)) = $0 { p == RemotePeerID("103") && mids.isEmpty } else { false } })
        run(for: .seconds(1))
        let after = effects.compactMap { if case .decodeVideo(let p, _, _) = $0 { p } else { nil } }
        #expect(!after.contains(RemotePeerID("103")) && Set(after).count == 7)
        // A feed's decoder asking for a keyframe reaches the subscription connection (not a connection of its own).
        effects = []
        fromCore(core.handle(.decodeFailed(RemotePeerID("101"), mid: "3"), now: now))
        run(for: .milliseconds(200))
        #expect(core.connection(of: sub)?.state == .connected)

        // Leaving closes both connections and every participant left.
        effects = []
        fromCore(core.handle(.leave, now: now))
        let closed = effects.compactMap { if case .participantClosed(let p, _) = $0 { p } else { nil } }
        #expect(Set(closed) == Set(opened).subtracting([RemotePeerID("103")]))
    }
}
