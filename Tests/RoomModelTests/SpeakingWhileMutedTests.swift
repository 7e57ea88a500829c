import EngineTestSupport
import Testing
@testable import RoomModel

/// The speaker mark and "muted" never share a label (#28): a remote mute announced while that participant's audio is
/// still arriving, levels that arrive after the mute (packets already in flight), the local microphone muted mid-word.

private func pid(_ s: String) -> ParticipantID { ParticipantID(s) }

private func roomWith(_ names: [String]) -> Room {
    var room = Room(roomName: "r", localName: "Sam")
    room.apply(.joined(you: pid("me"), peers: names.map(pid)))
    for n in names { room.apply(.nameChanged(pid(n), n)); room.apply(.connectionChanged(pid(n), .connected)) }
    return room
}

private func labels(_ room: Room) -> [String] { room.participants.map { TileLabel.text(for: $0, columns: 80) } }

private func neverBoth(_ room: Room) {
    for label in labels(room) { #expect(!(label.contains("◆") && label.contains("muted")), "\(label)") }
}

@Test func aRemoteMuteEndsTheMarkAtOnceEvenWithLevelsStillArriving() {
    var room = roomWith(["Grace"])
    var t = 0.0
    for _ in 0..<10 { room.apply(.audioLevel(pid("Grace"), level: 0.3, at: t)); t += 0.02 }
    #expect(labels(room)[1].hasPrefix("◆ Grace"))
    room.apply(.remoteMediaChanged(pid("Grace"), audioMuted: true, videoOn: nil))
    #expect(room.remotes[pid("Grace")]?.speaking == false)
    neverBoth(room)
    // Loud packets sent before the mute are still decoded after it: none of them brings the mark back.
    for _ in 0..<10 { room.apply(.audioLevel(pid("Grace"), level: 0.4, at: t)); t += 0.02; neverBoth(room) }
    #expect(labels(room)[1] == "  Grace · muted · connected")
    // Unmuted and talking again: the mark comes back with the next loud level.
    room.apply(.remoteMediaChanged(pid("Grace"), audioMuted: false, videoOn: nil))
    room.apply(.audioLevel(pid("Grace"), level: 0.3, at: t))
    #expect(labels(room)[1] == "◆ Grace · connected")
}

@Test func muteAndLevelsInterleavedInAnyOrderNeverShowBoth() {
    // Every interleaving of a speaking burst with mute/unmute announcements, including the hold time after the last
    // loud level (where `speaking` used to stay true).
    var rng = SplitMixRandom(seed: 28)
    for _ in 0..<200 {
        var room = roomWith(["Ada", "Grace"])
        var t = 0.0
        for _ in 0..<60 {
            t += Double.random(in: 0...0.3, using: &rng)
            let who = Bool.random(using: &rng) ? "Ada" : "Grace"
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: room.apply(.remoteMediaChanged(pid(who), audioMuted: Bool.random(using: &rng), videoOn: nil))
            case 1: room.apply(.local(.setMuted(Bool.random(using: &rng))))
            case 2: room.apply(.audioLevel(pid("me"), level: Double.random(in: 0...0.5, using: &rng), at: t))
            default: room.apply(.audioLevel(pid(who), level: Double.random(in: 0...0.5, using: &rng), at: t))
            }
            neverBoth(room)
            for p in room.participants { #expect(!(p.speaking && p.audioMuted)) }
        }
    }
}

@Test func theLabelKeepsItsOrderAndElidesFromTheRight() {
    var room = roomWith(["Grace"])
    room.apply(.remoteMediaChanged(pid("Grace"), audioMuted: true, videoOn: false))
    let grace = room.remotes[pid("Grace")]!
    #expect(TileLabel.text(for: grace, columns: 80) == "  Grace · muted · video off · connected")
    // Narrower tiles lose the connection state first, then the video, never the name's start.
    #expect(TileLabel.text(for: grace, columns: 28) == "  Grace · muted · video off…")
    #expect(TileLabel.text(for: grace, columns: 22) == "  Grace · muted · vid…")
    #expect(TileLabel.text(for: grace, columns: 12) == "  Grace · m…")
    // The local participant: the source sits where the video state goes.
    room.apply(.local(.setSource("face")))
    #expect(TileLabel.text(for: room.local, columns: 80) == "  Sam (you) · [face]")
    room.apply(.local(.setMuted(true)))
    room.apply(.local(.setVideoOn(false)))
    #expect(TileLabel.text(for: room.local, columns: 80) == "  Sam (you) · muted · video off")
}
