import Testing
import EngineTestSupport
@testable import Engine

/// A room policy of the tests' own, the second conformer of `RoomPolicy` beside `Mesh`: it proves the seam. The
/// offering member opens two connections to the other, one that only sends and one that only receives (as a client
/// of an SFU publishes on one and subscribes on the other), and a second after the receiving one connects, adds a
/// video section to it and renegotiates. Its signals name connections `NAME-pub` and `NAME-sub`.
struct ScriptedPolicy: RoomPolicy {
    /// The other member's name; nil for the answering side, which takes whatever it is offered.
    let other: String?
    private(set) var you: RemotePeerID?
    private(set) var nextDeadline: TransportTime?
    private var renegotiated = false

    init(offeringTo other: String?) { self.other = other }

    mutating func handle(_ input: RoomInput, now: TransportTime) -> [RoomAction] {
        switch input {
        case .signal(.joined(let me, _)):
            you = me
            guard let other else { return [] }
            return [.createConnection(RemotePeerID("\(other)-pub"), role: .offerer, media: .sendOnly),
                    .createConnection(RemotePeerID("\(other)-sub"), role: .offerer, media: .receiveOnly)]
        case .signal(.offer(let from, let offer)):
            // The answering side mirrors: what the other publishes we receive, and the reverse.
            let media: ConnectionMedia = from.rawValue.hasSuffix("-pub") ? .receiveOnly : .sendOnly
            return [.createConnection(from, role: nil, media: media), .applyRemoteOffer(from, offer)]
        case .signal(.answer(let from, let answer)): return [.applyRemoteAnswer(from, answer)]
        case .signal(.candidate(let from, let candidate)): return [.addRemoteCandidate(from, candidate)]
        case .signal: return []
        case .localSignal(let signal): return [.send(signal)]
        case .connectionState(let peer, .connected) where peer.rawValue.hasSuffix("-sub") && other != nil && !renegotiated:
            nextDeadline = now + .seconds(1)
            return []
        case .connectionState: return []
        case .timer:
            nextDeadline = nil
            renegotiated = true
            guard let other else { return [] }
            let sub = RemotePeerID("\(other)-sub")
            return [.log("renegotiating \(sub)"), .addTransceiver(sub, .video, .recvonly), .createOffer(sub)]
        case .signalingLost, .leave: return []
        }
    }
}

@Suite struct ScriptedPolicyTests {
    @Test func aSendOnlyAndAReceiveOnlyConnectionAndARenegotiationOfTheLatter() throws {
        let room = CallRoomHarness(seed: 9)
        let ann = room.add("ann", policy: ScriptedPolicy(offeringTo: "bob"))
        let bob = room.add("bob", policy: ScriptedPolicy(offeringTo: nil))
        // Connection names: ann's "bob-pub" is bob's "ann-pub", and so on.
        room.route = { signal, from in
            let to = from === ann ? bob : ann
            let suffix = signal.peer.rawValue.hasSuffix("-pub") ? "pub" : "sub"
            let id = RemotePeerID("\(from.name)-\(suffix)")
            return switch signal {
            case .offer(_, let sdp): (to, .offer(from: id, sdp: sdp))
            case .answer(_, let sdp): (to, .answer(from: id, sdp: sdp))
            case .candidate(_, let c, let mid, let index): (to, .candidate(from: id, candidate: c, mid: mid, mLineIndex: index))
            }
        }
        room.join("bob")
        room.join("ann")
        let connected = { (m: CallRoomHarness.Member, peer: String) in m.core.connection(of: RemotePeerID(peer))?.state == .connected }
        #expect(room.run(for: .seconds(5)) { connected(ann, "bob-pub") && connected(ann, "bob-sub") && connected(bob, "ann-pub") && connected(bob, "ann-sub") })
        room.run(for: .seconds(1))
        // Ann's media reaches bob over "pub" only, bob's reaches ann over "sub" only.
        let annPub = ann.core.connection(of: RemotePeerID("bob-pub"))!.stats(now: room.now)
        let annSub = ann.core.connection(of: RemotePeerID("bob-sub"))!.stats(now: room.now)
        #expect(annPub.videoPacketsSent > 0 && annPub.videoPacketsReceived == 0 && annPub.audioPacketsReceived == 0)
        #expect(annSub.videoPacketsSent == 0 && annSub.videoPacketsReceived > 0 && annSub.audioPacketsReceived > 0)
        #expect(annPub.sections.allSatisfy { $0.sends && !$0.receives } && annSub.sections.allSatisfy { !$0.sends && $0.receives })
        #expect((bob.videoFrom["ann"]?.count ?? 0) > 10 && (ann.videoFrom["bob"]?.count ?? 0) > 10)

        // A second after "sub" connected, ann adds a receive-only video section to it and offers again: the same
        // connection, now three media sections, and bob's media keeps arriving. The new section's mid is 3: mid 2 is
        // the data channels' application section of the first offer, which the stats do not list.
        let framesBefore = ann.videoFrom["bob"]?.count ?? 0
        room.run(for: .seconds(2))
        #expect(ann.log.contains { $0.contains("renegotiating bob-sub") })
        let sub = ann.core.connection(of: RemotePeerID("bob-sub"))!
        let after = sub.stats(now: room.now)
        #expect(after.sections.map(\.mid) == ["0", "1", "3"], "\(after.sections)")
        #expect(after.sections.map(\.kind) == ["audio", "video", "video"], "\(after.sections)")
        // The re-offer keeps the application section where it was, and bob's answer still accepts it.
        let reoffer = try #require(sub.localDescription), reanswer = try #require(sub.remoteDescription)
        #expect(reoffer.media.map(\.kind) == ["audio", "video", "application", "video"])
        #expect(reoffer.media.map { $0.mid?.rawValue } == ["0", "1", "2", "3"] && reanswer.media.map { $0.mid?.rawValue } == ["0", "1", "2", "3"])
        #expect(reanswer.media[2].kind == "application" && !reanswer.media[2].isRejected)
        #expect(reanswer.bundleGroup?.mids.map(\.rawValue) == ["0", "1", "2", "3"])
        #expect(ann.states.filter { $0.hasPrefix("bob:") }.allSatisfy { !$0.hasSuffix("closed") }, "\(ann.states)")
        #expect((ann.videoFrom["bob"]?.count ?? 0) >= framesBefore + 25)
        #expect(ann.misattributed == 0 && bob.misattributed == 0)
    }
}
