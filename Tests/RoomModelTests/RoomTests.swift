import EngineTestSupport
import Testing
@testable import RoomModel

private func pid(_ s: String) -> ParticipantID { ParticipantID(s) }

@Test func joinPutsLocalFirstThenPeersInJoinOrder() {
    var room = Room(roomName: "r1")
    room.apply(.joined(you: pid("me"), peers: [pid("a"), pid("b")]))
    room.apply(.peerJoined(pid("c")))
    #expect(room.participants.map(\.id.rawValue) == ["me", "a", "b", "c"])
    #expect(room.local.connection == .connected)
    #expect(room.remotes[pid("c")]?.connection == .new)
}

@Test func duplicateAndUnknownEventsAreIgnoredWithAReason() {
    var room = Room(roomName: "r1")
    room.apply(.joined(you: pid("me"), peers: [pid("a")]))
    #expect(room.apply(.peerJoined(pid("a"))) == .ignored("duplicate new peer a"))
    #expect(room.apply(.peerJoined(pid("me"))) == .ignored("new peer me is ourselves"))
    #expect(room.apply(.peerLeft(pid("zz"))) == .ignored("unknown peer zz left"))
    #expect(room.apply(.connectionChanged(pid("zz"), .connected)) == .ignored("unknown participant zz"))
    #expect(room.apply(.remoteMediaChanged(pid("me"), audioMuted: true, videoOn: nil))
            == .ignored("remote media change for the local participant"))
    #expect(room.gridOrder.count == 2)
}

@Test func aRejoinDropsPeersThatAreGoneAndKeepsTheOthers() {
    var room = Room(roomName: "r1")
    room.apply(.joined(you: pid("me"), peers: [pid("a"), pid("b")]))
    room.apply(.connectionChanged(pid("a"), .connected))
    room.apply(.local(.setMuted(true)))
    room.apply(.joined(you: pid("me2"), peers: [pid("a"), pid("c")]))
    #expect(room.participants.map(\.id.rawValue) == ["me2", "a", "c"])
    #expect(room.remotes[pid("a")]?.connection == .connected)
    #expect(room.local.audioMuted, "the local media state survives a rejoin")
}

@Test func leavingRemovesEveryRemoteAndClosesTheLocalTile() {
    var room = Room(roomName: "r1")
    room.apply(.joined(you: pid("me"), peers: [pid("a"), pid("b")]))
    #expect(room.apply(.left) == .changed)
    #expect(room.remotes.isEmpty)
    #expect(room.local.connection == .closed)
    #expect(room.apply(.left) == .ignored("room left"))
    #expect(room.apply(.peerJoined(pid("late"))) == .ignored("room left"), "late events do not bring tiles back")
    #expect(room.remotes.isEmpty)
}

@Test func theLocalMediaStateIsSetAsReportedNotToggled() {
    var room = Room(roomName: "r", sourceName: "card")
    #expect(room.apply(.local(.setMuted(true))) == .changed)
    #expect(room.apply(.local(.setVideoOn(false))) == .changed)
    #expect(room.apply(.local(.setSource("bars"))) == .changed)
    #expect(room.local.audioMuted && !room.local.videoOn && room.local.sourceName == "bars")
    // A report repeated (the media layer says the same twice) changes nothing: nothing flips back.
    #expect(room.apply(.local(.setMuted(true))) == .ignored("already muted"))
    #expect(room.apply(.local(.setVideoOn(false))) == .ignored("video already off"))
    #expect(room.local.audioMuted && !room.local.videoOn)
    room.apply(.local(.setMuted(false)))
    room.apply(.local(.setVideoOn(true)))
    #expect(!room.local.audioMuted && room.local.videoOn)
}

@Test func speakingHasHysteresis() {
    var room = Room(roomName: "r")
    room.apply(.joined(you: pid("me"), peers: [pid("a")]))
    room.apply(.audioLevel(pid("a"), level: 0.2, at: 1.0))
    #expect(room.remotes[pid("a")]?.speaking == true)
    // a dip below the off threshold shorter than the hold time keeps the highlight
    room.apply(.audioLevel(pid("a"), level: 0.01, at: 1.3))
    #expect(room.remotes[pid("a")]?.speaking == true)
    room.apply(.audioLevel(pid("a"), level: 0.01, at: 1.0 + Room.speakHold + 0.05))
    #expect(room.remotes[pid("a")]?.speaking == false)
    // a level between the thresholds does not start speaking
    room.apply(.audioLevel(pid("a"), level: 0.06, at: 3.0))
    #expect(room.remotes[pid("a")]?.speaking == false)
    // NaN and out-of-range levels are clamped
    room.apply(.audioLevel(pid("a"), level: .nan, at: 4.0))
    #expect(room.remotes[pid("a")]?.audioLevel == 0)
    room.apply(.audioLevel(pid("a"), level: 7, at: 4.1))
    #expect(room.remotes[pid("a")]?.audioLevel == 1)
}

@Test func framesRecordTimeAndAspect() {
    var room = Room(roomName: "r")
    room.apply(.joined(you: pid("me"), peers: [pid("a")]))
    room.apply(.frameArrived(pid("a"), at: 2.5, width: 640, height: 360))
    #expect(room.remotes[pid("a")]?.lastFrameAt == 2.5)
    #expect(abs((room.remotes[pid("a")]?.videoAspect ?? 0) - 16.0 / 9.0) < 1e-9)
    room.apply(.frameArrived(pid("a"), at: 2.6, width: 0, height: 0))
    #expect(abs((room.remotes[pid("a")]?.videoAspect ?? 0) - 16.0 / 9.0) < 1e-9, "a zero size keeps the aspect")
}

@Test func namesFromOtherClientsCannotInjectEscapes() {
    var room = Room(roomName: "r")
    room.apply(.joined(you: pid("me"), peers: [pid("abcdef0123456789")]))
    #expect(room.remotes[pid("abcdef0123456789")]?.displayName == "abcdef01")
    room.apply(.nameChanged(pid("abcdef0123456789"), "  \u{1b}[31mEve\u{7}\u{200b} "))
    #expect(room.remotes[pid("abcdef0123456789")]?.displayName == "[31mEve")
    room.apply(.nameChanged(pid("abcdef0123456789"), String(repeating: "x", count: 100)))
    #expect(room.remotes[pid("abcdef0123456789")]?.displayName.count == 32)
    room.apply(.nameChanged(pid("abcdef0123456789"), "\u{1b}"))
    #expect(room.remotes[pid("abcdef0123456789")]?.displayName == "abcdef01", "an empty name falls back to the id")
}

/// Any order of join / leave / duplicate / unknown events keeps the room consistent with a
/// plain reference model: the remotes are exactly those joined and not since removed, in the
/// order they (last) joined; the local tile is always first.
@Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
func anyEventOrderMatchesTheReferenceModel(seed: UInt64) {
    var rng = SplitMixRandom(seed: seed)
    let pool = (0..<8).map { pid("p\($0)") }
    var room = Room(roomName: "r")
    var reference: [ParticipantID] = []   // remotes in join order
    var you = pid("local")
    var left = false
    for step in 0..<2_000 {
        let target = pool[Int(rng.next() % UInt64(pool.count))]
        switch rng.next() % 9 {
        case 0:
            you = pid("me\(step)")
            let peers = pool.filter { _ in rng.next() % 2 == 0 }
            room.apply(.joined(you: you, peers: peers))
            left = false
            reference = reference.filter { peers.contains($0) }
            for p in peers where !reference.contains(p) { reference.append(p) }
        case 1, 2:
            room.apply(.peerJoined(target))
            if !left && !reference.contains(target) { reference.append(target) }
        case 3, 4:
            room.apply(.peerLeft(target))
            reference.removeAll { $0 == target }
        case 5:
            room.apply(.connectionChanged(target, ConnectionState.allCases.randomElement(using: &rng)!))
        case 6:
            room.apply(.audioLevel(target, level: Double(rng.next() % 100) / 100, at: Double(step) / 50))
        case 7:
            room.apply(.frameArrived(target, at: Double(step), width: 320, height: 240))
        default:
            if rng.next() % 20 == 0 {
                room.apply(.left)
                left = true
                reference.removeAll()
            } else {
                room.apply(.local(.setMuted(!room.local.audioMuted)))
            }
        }
        let order = room.participants
        #expect(order.first?.isLocal == true)
        #expect(order.first?.id == room.local.id)
        #expect(Array(order.dropFirst().map(\.id)) == reference, "step \(step)")
        #expect(Set(order.map(\.id)).count == order.count, "no duplicate tiles")
    }
}
