import Synchronization
import Testing
@testable import ConfTUI
import Engine
import RoomModel
import Signaling

/// A second session driver, scripted: it speaks no protocol at all, only `SessionEvent`s, as a driver for another room
/// protocol would after its own translation.
private final class ScriptedRoomSession: RoomSession {
    let call: Call
    let messaging = CallMessaging(core: RoomMessaging(configuration: {
        var c = RoomMessaging.Configuration()
        c.filePolicy = .refuseAll
        return c
    }()), log: { _ in })
    let settings = RoomSessionSettings(url: "ws://scripted.invalid/", room: "standup", name: "Ada")
    var roomShown: String { settings.room }
    private let queued = Mutex<[SessionEvent]>([])
    private let left = Atomic<Bool>(false)

    init(script: [SessionEvent]) throws {
        var options = Call.Options()
        options.hostCandidates = .loopback
        call = try Call(options: options, onSignal: { _ in })
        queued.withLock { $0 = script }
    }

    func start() throws -> RemotePeerID { RemotePeerID("me") }
    func leave() { left.store(true, ordering: .releasing) }
    func takeEvents() -> [SessionEvent] { queued.withLock { q in defer { q = [] }; return q } }
    var endReason: String? { left.load(ordering: .acquiring) ? "left" : nil }
}

/// What the screen and the reports use of a session is the `RoomSession` protocol only: another driver's events reach
/// the room model the way SkyRTC's do.
@Test(.timeLimit(.minutes(1)))
func anotherDriversEventsReachTheRoomThroughTheSameFeed() throws {
    let a = RemotePeerID("a"), b = RemotePeerID("b")
    let session: any RoomSession = try ScriptedRoomSession(script: [
        .joined(you: RemotePeerID("me"), peers: [a], names: [a: "Ada"], media: [a: RemoteMediaState(audioMuted: true)]),
        .peerJoined(b, name: "Bob"),
        .peerMedia(b, RemoteMediaState(videoOn: false)),
        .peerLeft(a),
    ])
    #expect(try session.start() == RemotePeerID("me"))
    var feed = CallScreenFeed(session: session)
    var room = Room(roomName: session.roomShown, localName: session.settings.name)
    for event in feed.update(now: 0).events { room.apply(event) }
    #expect(room.participant(ParticipantID("a")) == nil)
    let bob = try #require(room.participant(ParticipantID("b")))
    #expect(bob.name == "Bob" && !bob.videoOn)
    #expect(feed.update(now: 0.05).events.isEmpty)
    session.leave()
    #expect(session.endReason == "left")
    let report = CallReport(session: session, name: "Ada", startedAt: 0, endReason: "left")
    #expect(report.room == "standup" && report.peers.isEmpty)
}
