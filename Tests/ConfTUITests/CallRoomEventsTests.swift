import Testing
@testable import ConfTUI
@testable import Engine
import RoomModel

/// `CallRoomEvents`: what the screen learns from signaling events, call events and the call's snapshots.
private func peer(_ state: PeerConnectionState, frames: Int = 0, width: Int = 320, height: Int = 240,
                  bytes: UInt64 = 0, level: Double = 0) -> PeerSnapshot {
    var transport = PeerConnection.Stats(state: state, iceState: "checking")
    transport.bytesReceived = bytes
    transport.roundTripTimeMs = 12
    var video = ReceivedVideoSnapshot()
    video.framesDecoded = frames
    video.width = frames > 0 ? width : 0
    video.height = frames > 0 ? height : 0
    var audio = ReceivedAudioSnapshot()
    audio.level = level
    return PeerSnapshot(role: .offerer, createdAt: 0, timeline: [], timeToConnected: nil, localCandidates: [],
                        transport: transport, video: video, audio: audio)
}

private func snapshot(_ peers: [String: PeerSnapshot], source: String = "card", inputLevel: Double = 0,
                      encoded: (frames: Int, bytes: UInt64) = (0, 0)) -> CallSnapshot {
    let local = LocalMediaSnapshot(source: source, toneHz: 0, muted: false, videoEnabled: true, videoBitrateKbps: 300,
                                   videoFramesEncoded: encoded.frames, videoBytesEncoded: encoded.bytes, keyframesEncoded: 0,
                                   audioFramesEncoded: 0, audioDTXFrames: 0, audioInputNote: "", inputLevel: inputLevel)
    return CallSnapshot(you: RemotePeerID("me"), elapsed: 0, local: local,
                        peers: Dictionary(uniqueKeysWithValues: peers.map { (RemotePeerID($0.key), $0.value) }))
}

private let a = ParticipantID("a")

@Test func joinedCarriesTheNamesAndNewPeersTheirName() {
    var t = CallRoomEvents()
    #expect(t.events(from: .joined(you: RemotePeerID("me"), peers: [RemotePeerID("a"), RemotePeerID("b")], names: [RemotePeerID("a"): "Ada"]))
            == [.joined(you: ParticipantID("me"), peers: [a, ParticipantID("b")]), .nameChanged(a, "Ada")])
    #expect(t.events(from: .peerJoined(RemotePeerID("c"), name: "Cyd")) == [.peerJoined(ParticipantID("c")), .nameChanged(ParticipantID("c"), "Cyd")])
    #expect(t.events(from: .peerJoined(RemotePeerID("d"), name: nil)) == [.peerJoined(ParticipantID("d"))])
    #expect(t.events(from: .peerLeft(RemotePeerID("c"))) == [.peerLeft(ParticipantID("c"))])
}

@Test func everyStateIsReportedInOrderAndClosedNeverShows() {
    var t = CallRoomEvents()
    let states: [PeerConnectionState] = [.connecting, .connected, .disconnected, .connected]
    let out = states.flatMap { t.events(from: .peerState(RemotePeerID("a"), $0, cause: "test"), now: 0) }
    #expect(out == [.connectionChanged(a, .connecting), .connectionChanged(a, .connected),
                    .connectionChanged(a, .disconnected), .connectionChanged(a, .connected)])
    // A closed connection belongs to a peer that left: its tile goes with `_remove_peer`, not with a "closed" label.
    #expect(t.events(from: .peerState(RemotePeerID("a"), .closed, cause: "closed"), now: 0) == [])
}

@Test func theFirstPictureAndEachNewSizeArriveAndStatsComeOnceASecond() {
    var t = CallRoomEvents()
    #expect(t.events(from: .videoSize(RemotePeerID("a"), width: 640, height: 360), now: 0.5)
            == [.frameArrived(a, at: 0.5, width: 640, height: 360)])
    _ = t.events(from: snapshot(["a": peer(.connected, frames: 0, bytes: 0)]), now: 0)
    let e = t.events(from: snapshot(["a": peer(.connected, frames: 3, width: 640, height: 360, bytes: 10_000)]), now: 0.5)
    #expect(!e.contains { if case .statsUpdated = $0 { return true } else { return false } })
    #expect(!e.contains { if case .frameArrived = $0 { return true } else { return false } }, "pictures come as call events")
    let s = t.events(from: snapshot(["a": peer(.connected, frames: 18, width: 640, height: 360, bytes: 135_000)]), now: 1.0)
    let stats = s.compactMap { if case .statsUpdated(a, let m) = $0 { return m } else { return nil } }
    #expect(stats.count == 1)
    // 135,000 bytes in the second since the first sample: 1,080 kbps.
    #expect(abs((stats.first?.kbps ?? 0) - 1_080) < 0.001)
    #expect(stats.first?.rttMs == 12 && stats.first?.frameWidth == 640 && stats.first?.videoCodec == "VP8")
}

@Test func aPeersFurtherVideoSectionsBecomeItsExtraStreamsAndTheirPicturesArrive() {
    var t = CallRoomEvents()
    let id = RemotePeerID("a")
    // The first section is the main video: only the others are extra tiles.
    #expect(t.events(from: .videoStreams(id, mids: ["0", "2"]), now: 1) == [.streamsChanged(a, extra: ["2"])])
    #expect(t.events(from: .videoStreams(id, mids: ["0", "2", "3"]), now: 1) == [.streamsChanged(a, extra: ["2", "3"])])
    #expect(t.events(from: .streamVideoSize(id, mid: "2", width: 1920, height: 1080), now: 1.5)
            == [.streamFrameArrived(a, stream: "2", at: 1.5, width: 1920, height: 1080)])
    // A renegotiation without the screen, or without any video, leaves no extra tile.
    #expect(t.events(from: .videoStreams(id, mids: ["0"]), now: 2) == [.streamsChanged(a, extra: [])])
    #expect(t.events(from: .videoStreams(id, mids: []), now: 2) == [.streamsChanged(a, extra: [])])
}

@Test func theLocalMediaIsWhatThePipelineReports() {
    var t = CallRoomEvents()
    let e = t.events(from: .localMedia(LocalMediaState(audioMuted: true, videoOn: false, source: "bars")), now: 0)
    #expect(e == [.local(.setMuted(true)), .local(.setVideoOn(false)), .local(.setSource("bars"))])
    #expect(!t.events(from: snapshot([:], source: "card"), now: 0).contains { if case .local = $0 { return true } else { return false } },
            "snapshots carry measurements only")
}

@Test func yourOwnRowIsWhatTheEncoderSendsAndItsTarget() {
    var t = CallRoomEvents()
    let me = ParticipantID("me")
    _ = t.events(from: snapshot([:], encoded: (0, 0)), now: 0)
    let s = t.events(from: snapshot([:], encoded: (15, 20_000)), now: 1.0)
    let mine = s.compactMap { if case .statsUpdated(me, let m) = $0 { return m } else { return nil } }
    #expect(mine.count == 1)
    // 15 frames and 20,000 bytes in one second: 15 fps, 160 kbps, towards the 300 kbps target.
    #expect(mine.first?.fps == 15 && abs((mine.first?.kbps ?? 0) - 160) < 0.001 && mine.first?.targetKbps == 300)
}

@Test func losingSignalingShowsEveryKnownPeerDisconnectedUntilItsNewConnectionConnects() {
    var t = CallRoomEvents()
    _ = t.events(from: .peerState(RemotePeerID("a"), .connected, cause: "test"), now: 0)
    _ = t.events(from: .peerState(RemotePeerID("b"), .connecting, cause: "test"), now: 0)
    #expect(t.events(from: .signalingLost(reason: "eof", retryIn: 0.5))
            == [.connectionChanged(a, .disconnected), .connectionChanged(ParticipantID("b"), .disconnected)])
    // The rejoin's fresh connection to a peer still there reaches `connected` again: that must show.
    #expect(t.events(from: .peerState(RemotePeerID("a"), .connected, cause: "test"), now: 1) == [.connectionChanged(a, .connected)])
}

@Test func yourMicrophoneLevelDrivesYourOwnMeter() {
    var t = CallRoomEvents()
    let e = t.events(from: snapshot([:], inputLevel: 0.25), now: 0)
    #expect(e.contains(.audioLevel(ParticipantID("me"), level: 0.25, at: 0)))
}

@Test func announcedMediaStatesBecomeRemoteMediaChangesOneToOne() {
    var t = CallRoomEvents()
    let a = ParticipantID("a")
    let off = RemoteMediaState(audioMuted: true, videoOn: false)
    #expect(t.events(from: .peerMedia(RemotePeerID("a"), off)) == [.remoteMediaChanged(a, audioMuted: true, videoOn: false)])
    // A protocol that announces only one of the two leaves the other as the screen knew it.
    #expect(t.events(from: .peerMedia(RemotePeerID("a"), RemoteMediaState(audioMuted: false)))
            == [.remoteMediaChanged(a, audioMuted: false, videoOn: nil)])
    // `_peers.media` of members in the room; an entry for an id that is not a member is not a participant.
    let joined = t.events(from: .joined(you: RemotePeerID("me"), peers: [RemotePeerID("a")], names: [:],
                                        media: [RemotePeerID("a"): off, RemotePeerID("stranger"): off]))
    #expect(joined == [.joined(you: ParticipantID("me"), peers: [a]), .remoteMediaChanged(a, audioMuted: true, videoOn: false)])
}
