import Foundation
import Synchronization
import Testing
@testable import Engine
@testable import EngineTransport

/// Two (or three) `Call`s in one process, signaling wired directly (no server), media over real UDP on 127.0.0.1,
/// real VP8 and Opus: the whole call layer end to end, checked at the receiver by content (test card counters,
/// tone frequency, silence when muted).
final class InProcessRoom: Sendable {
    private let calls = Mutex<[RemotePeerID: Call]>([:])
    private let members = Mutex<[RemotePeerID]>([])

    /// A call whose outgoing signals are delivered to the addressed call as if a SkyRTC server relayed them.
    func makeCall(_ id: String, tone: Double, participant: UInt8, stunServer: TransportAddress? = nil,
                  log: (@Sendable (String) -> Void)? = nil, configure: (inout Call.Options) -> Void = { _ in }) throws -> Call {
        let me = RemotePeerID(id)
        var options = Call.Options()
        options.hostCandidates = .loopback
        options.stunServer = stunServer
        options.media.toneHz = tone
        options.media.participant = participant
        if let log { options.log = log }
        configure(&options)
        let call = try Call(options: options) { [self] signal in
            switch signal {
            case .offer(let to, let sdp): deliver(to, .offer(from: me, sdp: sdp))
            case .answer(let to, let sdp): deliver(to, .answer(from: me, sdp: sdp))
            case .candidate(let to, let c, let mid, let index): deliver(to, .candidate(from: me, candidate: c, mid: mid, mLineIndex: index))
            }
        }
        calls.withLock { $0[me] = call }
        return call
    }

    func deliver(_ to: RemotePeerID, _ signal: CallSignalIn) {
        calls.withLock { $0[to] }?.handle(signal)
    }

    /// SkyRTC join order: existing members get `_new_peer`, the newcomer gets `_peers` and offers.
    func join(_ id: String) {
        let me = RemotePeerID(id)
        let others = members.withLock { m in defer { m.append(me) }; return m }
        for other in others { deliver(other, .newPeer(me)) }
        calls.withLock { $0[me] }?.start()
        deliver(me, .joined(you: me, others: others))
    }

    func stopAll() { for call in calls.withLock({ Array($0.values) }) { call.stop() } }
}

func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(50_000)
    }
    return condition()
}

@Suite(.serialized)
struct CallLoopbackTests {
    @Test(.timeLimit(.minutes(1)))
    func twoCallsSeeAndHearEachOther() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        let A = RemotePeerID("a"), B = RemotePeerID("b")
        let flowing = waitFor(8) {
            let sa = a.snapshot(analyseAudio: false), sb = b.snapshot(analyseAudio: false)
            return (sa.peers[B]?.video.testCard?.count ?? 0) >= 15 && (sb.peers[A]?.video.testCard?.count ?? 0) >= 15
                && (sa.peers[B]?.audio.framesDecoded ?? 0) >= 25 && (sb.peers[A]?.audio.framesDecoded ?? 0) >= 25
        }
        let sa = a.snapshot(), sb = b.snapshot()
        #expect(flowing, "media both ways: \(sa) \(sb)")
        let atA = try #require(sa.peers[B]), atB = try #require(sb.peers[A])
        // The newcomer offered (SkyRTC): b is the offerer towards a.
        #expect(atB.role == .offerer && atA.role == .answerer)
        #expect(atA.transport.state == .connected && atB.transport.state == .connected)
        #expect(atA.transport.dtlsRole == "client" && atB.transport.dtlsRole == "server")   // answerer is `active`
        #expect(atA.transport.srtpProfile != nil && atA.transport.srtpProfile == atB.transport.srtpProfile)
        #expect(atA.timeline.map(\.state).contains(.connecting) && atA.timeline.last?.state == .connected)
        print("call loopback: time to connected a←b \(atA.timeToConnected ?? -1) s, b→a \(atB.timeToConnected ?? -1) s; "
              + "a decoded \(atA.video.framesDecoded) frames (card \(String(describing: atA.video.testCard))), "
              + "hears \(atA.audio.dominantFrequency ?? 0) Hz; b decoded \(atB.video.framesDecoded), hears \(atB.audio.dominantFrequency ?? 0) Hz")
        // Content: each side reads the other's test card (participant colour code) with counters advancing.
        #expect(atA.video.testCard?.participant == 2 && atB.video.testCard?.participant == 1)
        for card in [atA.video.testCard, atB.video.testCard].compactMap({ $0 }) {
            #expect(card.last > card.first && card.count >= 15)
        }
        #expect(atA.video.width == 320 && atA.video.height == 240)
        #expect(abs((atA.audio.dominantFrequency ?? 0) - 660) < 10, "a hears b's 660 Hz")
        #expect(abs((atB.audio.dominantFrequency ?? 0) - 440) < 10, "b hears a's 440 Hz")
        #expect(atA.audio.level > 0.05 && atB.audio.level > 0.05)
    }

    /// What a screen reads: every state change in order, the first picture with its size once, the local media as
    /// the pipeline applied it, the close of a peer that left.
    @Test(.timeLimit(.minutes(1)))
    func theCallTellsEachChangeAsAnEventInOrder() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        let B = RemotePeerID("b")
        #expect(waitFor(8) { (a.snapshot(analyseAudio: false).peers[B]?.video.framesDecoded ?? 0) >= 10 })
        var events = a.events.take()
        let states = events.compactMap { if case .peerState(B, let s, _) = $0 { s } else { nil } }
        #expect(states == [.connecting, .connected], "\(events)")
        let sizes = events.filter { if case .videoSize(B, _, _) = $0 { true } else { false } }
        #expect(sizes == [.videoSize(B, width: 320, height: 240)], "the first picture, once: \(events)")
        a.media.setMuted(true)
        a.media.setVideoEnabled(false)
        a.handle(.removePeer(B))
        #expect(waitFor(3) { a.snapshot(analyseAudio: false).peers[B]?.transport.state == .closed })
        events = a.events.take()
        #expect(events.first == .localMedia(LocalMediaState(audioMuted: true, videoOn: true, source: "card")))
        #expect(events.dropFirst().first == .localMedia(LocalMediaState(audioMuted: true, videoOn: false, source: "card")))
        #expect(events.contains { if case .peerState(B, .closed, _) = $0 { true } else { false } }, "\(events)")
        #expect(a.events.dropped == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func muteIsSilenceAndVideoOffStopsFrames() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        let A = RemotePeerID("a")
        #expect(waitFor(8) { (b.snapshot(analyseAudio: false).peers[A]?.audio.framesDecoded ?? 0) >= 25 })
        #expect(abs((b.snapshot().peers[A]?.audio.dominantFrequency ?? 0) - 440) < 10)
        a.media.setMuted(true)
        a.media.setVideoEnabled(false)
        usleep(1_200_000)   // more than the 0.5 s analysis window plus the jitter buffer
        let muted = try #require(b.snapshot().peers[A])
        #expect(muted.audio.level < 0.01, "muted sender is silence at the receiver: \(muted.audio)")
        #expect(muted.audio.dominantFrequency == nil)
        let framesThen = muted.video.framesDecoded
        usleep(600_000)
        #expect(b.snapshot(analyseAudio: false).peers[A]?.video.framesDecoded == framesThen, "video off sends nothing")
        a.media.setMuted(false)
        a.media.setVideoEnabled(true)
        #expect(waitFor(4) { (b.snapshot(analyseAudio: false).peers[A]?.video.framesDecoded ?? 0) > framesThen + 5 })
        #expect(waitFor(4) { abs((b.snapshot().peers[A]?.audio.dominantFrequency ?? 0) - 440) < 10 })
    }

    @Test(.timeLimit(.minutes(1)))
    func threeCallsFormAMeshAndRemovePeerCloses() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 550, participant: 2)
        let c = try room.makeCall("c", tone: 660, participant: 3)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        room.join("c")
        let calls = ["a": a, "b": b, "c": c]
        let mesh = waitFor(10) {
            calls.allSatisfy { id, call in
                let s = call.snapshot(analyseAudio: false)
                return s.peers.count == 2 && s.peers.values.allSatisfy { ($0.video.testCard?.count ?? 0) >= 5 }
            }
        }
        #expect(mesh, "\(calls.mapValues { $0.snapshot(analyseAudio: false).peers.mapValues(\.video) })")
        // One source and one encoder for everyone: b and c read card counters of a's single sequence, and a encoded
        // no more frames than its source produced in that time (not one stream per peer).
        let atA = a.snapshot()
        let seenAtB = try #require(b.snapshot(analyseAudio: false).peers[RemotePeerID("a")]?.video.testCard)
        let seenAtC = try #require(c.snapshot(analyseAudio: false).peers[RemotePeerID("a")]?.video.testCard)
        #expect(abs(Int(seenAtB.last) - Int(seenAtC.last)) <= 5, "\(seenAtB) \(seenAtC)")
        #expect(Int(max(seenAtB.last, seenAtC.last)) <= atA.local.videoFramesEncoded)
        #expect(Double(atA.local.videoFramesEncoded) <= atA.elapsed * 15 + 3, "\(atA.local) in \(atA.elapsed) s")
        // c hears two distinct tones from its two peers (110 Hz apart; a frame concealed now and then on a busy
        // machine smears the estimate by a Hz or two).
        let atC = c.snapshot()
        #expect(abs((atC.peers[RemotePeerID("a")]?.audio.dominantFrequency ?? 0) - 440) < 5, "\(atC.peers.mapValues(\.audio))")
        #expect(abs((atC.peers[RemotePeerID("b")]?.audio.dominantFrequency ?? 0) - 550) < 5, "\(atC.peers.mapValues(\.audio))")
        c.handle(.removePeer(RemotePeerID("a")))
        #expect(waitFor(3) { c.snapshot(analyseAudio: false).peers[RemotePeerID("a")]?.transport.state == .closed })
        // a learns from DTLS close_notify that c hung up.
        #expect(waitFor(3) { a.snapshot(analyseAudio: false).peers[RemotePeerID("c")]?.transport.state == .closed })
    }

    @Test(.timeLimit(.minutes(1)))
    func switchingTheSourceKeepsTheStreamWithoutRenegotiation() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        let A = RemotePeerID("a")
        #expect(waitFor(8) { (b.snapshot(analyseAudio: false).peers[A]?.video.testCard?.count ?? 0) >= 10 })
        a.media.switchSource()   // card → bars: same size, same encoder, same RTP stream
        #expect(waitFor(2) { a.snapshot(analyseAudio: false).local.source == "bars" })
        usleep(500_000)
        let before = try #require(b.snapshot(analyseAudio: false).peers[A]?.video)
        usleep(700_000)
        let after = try #require(b.snapshot(analyseAudio: false).peers[A]?.video)
        #expect(after.framesDecoded >= before.framesDecoded + 5, "frames keep coming: \(before) -> \(after)")
        #expect(after.testCard?.last == before.testCard?.last, "colour bars carry no card code")
        #expect(after.width == 320 && after.height == 240 && after.freezes == 0)
        #expect(b.snapshot(analyseAudio: false).peers[A]?.timeline.filter { $0.state == .connected }.count == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func glareResolvesToOneConnection() throws {
        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1)
        let b = try room.makeCall("b", tone: 660, participant: 2)
        defer { room.stopAll() }
        // Both believe the other was there first and offer at once.
        a.start()
        b.start()
        a.handle(.joined(you: RemotePeerID("a"), others: [RemotePeerID("b")]))
        b.handle(.joined(you: RemotePeerID("b"), others: [RemotePeerID("a")]))
        let flowing = waitFor(8) {
            (a.snapshot(analyseAudio: false).peers[RemotePeerID("b")]?.video.framesDecoded ?? 0) >= 5
                && (b.snapshot(analyseAudio: false).peers[RemotePeerID("a")]?.video.framesDecoded ?? 0) >= 5
        }
        #expect(flowing)
        // "b" (the larger id) kept its offer; "a" rolled back and answered.
        #expect(b.snapshot(analyseAudio: false).peers[RemotePeerID("a")]?.role == .offerer)
        #expect(a.snapshot(analyseAudio: false).peers[RemotePeerID("b")]?.role == .answerer)
    }
}
