import Testing
@testable import RoomModel

/// A participant's further video streams (a shared screen): a tile each, right after its main tile.
private func pid(_ s: String) -> ParticipantID { ParticipantID(s) }

/// Me, then Zoe (connected) and Bob.
private func room() -> Room {
    var room = Room(roomName: "r")
    room.apply(.joined(you: pid("me"), peers: [pid("z"), pid("b")]))
    room.apply(.nameChanged(pid("z"), "Zoe"))
    room.apply(.nameChanged(pid("b"), "Bob"))
    room.apply(.connectionChanged(pid("z"), .connected))
    return room
}

private func order(_ room: Room) -> [String] { room.gridOrder.map(\.id.description) }
private func labels(_ room: Room, columns: Int = 60) -> [String] { room.gridOrder.map { TileLabel.text(for: $0, columns: columns) } }

@Test func aSharedScreenGetsATileRightAfterItsParticipantsMainOne() {
    var room = room()
    #expect(room.apply(.streamsChanged(pid("z"), extra: ["1"])) == .changed)
    #expect(order(room) == ["me", "z", "z/1", "b"])
    let screen = room.gridOrder[2]
    #expect(screen.participant.id == pid("z") && screen.stream?.id == "1" && !screen.isMain)
    #expect(TileLabel.name(of: screen) == "Zoe · 2")
    #expect(TileLabel.text(for: screen, columns: 60) == "  Zoe · 2 · connected")
    // The same list again changes nothing (a renegotiation that kept the screen).
    #expect(room.apply(.streamsChanged(pid("z"), extra: ["1"])) == .ignored("no change"))
}

@Test func aStreamTileShowsTheConnectionButNeitherTheSpeakerMarkNorTheMute() {
    var room = room()
    room.apply(.streamsChanged(pid("z"), extra: ["1"]))
    room.apply(.remoteMediaChanged(pid("z"), audioMuted: false, videoOn: false))
    room.apply(.audioLevel(pid("z"), level: 0.5, at: 1))
    room.apply(.connectionChanged(pid("z"), .disconnected))
    #expect(room.participant(pid("z"))?.speaking == true)
    var l = labels(room)
    #expect(l[1] == "◆ Zoe · video off · disconnected", "the main tile keeps its marks")
    #expect(l[2] == "  Zoe · 2 · disconnected")
    room.apply(.remoteMediaChanged(pid("z"), audioMuted: true, videoOn: nil))
    l = labels(room)
    #expect(l[1] == "  Zoe · muted · video off · disconnected", "muted is never speaking")
    #expect(l[2] == "  Zoe · 2 · disconnected")
}

@Test func theTileGoesWhenTheStreamsChangeBackOrTheParticipantLeaves() {
    var room = room()
    room.apply(.streamsChanged(pid("z"), extra: ["1"]))
    #expect(room.apply(.streamsChanged(pid("z"), extra: [])) == .changed)
    #expect(order(room) == ["me", "z", "b"])
    room.apply(.streamsChanged(pid("z"), extra: ["1"]))
    room.apply(.peerLeft(pid("z")))
    #expect(order(room) == ["me", "b"])
    #expect(room.apply(.streamFrameArrived(pid("z"), stream: "1", at: 2, width: 1920, height: 1080)) == .ignored("unknown stream of z"))
    room.apply(.streamsChanged(pid("b"), extra: ["1"]))
    room.apply(.left)
    #expect(order(room) == ["me"])
}

@Test func severalParticipantsKeepJoinOrderEachFollowedByItsStreams() {
    var room = room()
    room.apply(.streamsChanged(pid("b"), extra: ["v9"]))
    room.apply(.streamsChanged(pid("z"), extra: ["s1", "s2"]))
    room.apply(.peerJoined(pid("c")))
    #expect(order(room) == ["me", "z", "z/s1", "z/s2", "b", "b/v9", "c"])
    #expect(room.gridOrder.map(TileLabel.name(of:)) == ["you", "Zoe", "Zoe · 2", "Zoe · 3", "Bob", "Bob · 2", "c"])
    // The first screen stops: the other one moves up and is now the second picture, keeping its shape.
    room.apply(.streamFrameArrived(pid("z"), stream: "s2", at: 3, width: 1280, height: 1024))
    room.apply(.streamsChanged(pid("z"), extra: ["s2"]))
    #expect(order(room) == ["me", "z", "z/s2", "b", "b/v9", "c"])
    let s2 = room.tile(TileID(pid("z"), stream: "s2"))
    #expect(s2.map(TileLabel.name(of:)) == "Zoe · 2")
    #expect(s2?.videoAspect == 1.25 && s2?.stream?.lastFrameAt == 3)
    #expect(room.tile(TileID(pid("z"), stream: "s1")) == nil)
}

@Test func theThreePerRowGridCountsTheStreamTilesAndTheirShape() {
    var room = room()
    room.apply(.streamsChanged(pid("z"), extra: ["1"]))
    room.apply(.frameArrived(pid("z"), at: 1, width: 640, height: 480))
    room.apply(.streamFrameArrived(pid("z"), stream: "1", at: 1, width: 1920, height: 1080))
    let tiles = room.gridOrder
    let byID = Dictionary(uniqueKeysWithValues: tiles.map { ($0.id, $0) })
    let area = CellRect(x: 0, y: 0, width: 120, height: 39)
    guard case .tiles(let placed, let columns) = GridLayout.make(for: tiles.map(\.id), in: area, aspect: { byID[$0]!.videoAspect }) else {
        Issue.record("expected tiles"); return
    }
    #expect(columns == 3)
    #expect(placed.map(\.id.description) == ["me", "z", "z/1", "b"])
    #expect(placed[3].frame.x == placed[0].frame.x && placed[3].frame.y > placed[0].frame.y, "Bob starts the second row")
    // Zoe's camera is 4:3 and her screen 16:9, in tiles of one size: the screen is the flatter picture.
    #expect(placed[2].frame.width == placed[1].frame.width)
    #expect(Double(placed[2].video.width) / Double(placed[2].video.height) > Double(placed[1].video.width) / Double(placed[1].video.height))
}

@Test func streamIdsFromTheNetworkAreBoundedAndNeverShown() {
    var room = room()
    let hostile = "\u{1b}[2J\u{1b}]0;pwned\u{7}\u{202e}"
    let huge = String(repeating: "x", count: 1_000)
    room.apply(.streamsChanged(pid("z"), extra: [hostile, huge, "", hostile, "a", "b", "c", "d"]))
    // The oversized and empty ids get no tile, the repeat none either; three at most per participant.
    #expect(room.gridOrder.compactMap(\.stream?.id) == [hostile, "a", "b"])
    #expect(room.participant(pid("z"))?.streams.count == VideoStream.maxExtraPerParticipant)
    for label in labels(room) + labels(room, columns: 8) + room.gridOrder.map(TileLabel.name(of:)) {
        #expect(!label.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202e}" || $0 == "x" }, "\(label.debugDescription)")
        #expect(DisplayWidth.of(label) <= 60)
    }
    #expect(labels(room)[2] == "  Zoe · 2 · connected")
    // A hostile name is cleaned for the stream tile as for the main one, and a long one elided within the width.
    room.apply(.nameChanged(pid("z"), "\u{1b}[31mEve" + String(repeating: "山", count: 40)))
    let cut = TileLabel.text(for: room.gridOrder[2], columns: 20)
    #expect(cut.hasPrefix("  [31mEve") && cut.hasSuffix("…") && DisplayWidth.of(cut) <= 20)
    #expect(!cut.unicodeScalars.contains { $0.value == 0x1B })
    // The local participant shares nothing through the room's streams, and an unknown peer's are ignored.
    #expect(room.apply(.streamsChanged(pid("me"), extra: ["1"])) == .ignored("further streams for the local participant"))
    #expect(room.apply(.streamsChanged(pid("nobody"), extra: ["1"])) == .ignored("unknown participant nobody"))
}
