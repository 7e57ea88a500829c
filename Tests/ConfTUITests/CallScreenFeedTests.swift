import Foundation
import Synchronization
import Testing
@testable import ConfTUI
@testable import Engine
import RoomModel
import Signaling

/// The screen's path from the call to the room model (`CallScreenFeed`), fed by the call's real event queue from
/// another thread while the screen's loop runs at its own pace.
@Suite struct CallScreenFeedTests {
    /// A connection that goes connecting → connected → disconnected → connected in less than 50 ms, faster than the
    /// screen's ~30 Hz loop and far faster than the 10 Hz snapshots: the room model still sees all four, in order.
    @Test(.timeLimit(.minutes(1)))
    func fourStatesWithin50msAllReachTheRoomInOrder() throws {
        let queue = CallEventQueue()
        let id = RemotePeerID("peer-a")
        var feed = CallScreenFeed(takeSessionEvents: { [] }, takeCallEvents: { queue.take() },
                                  snapshot: { CallSnapshot(you: nil, elapsed: 0, local: Self.idle, peers: [:]) })
        var room = Room(roomName: "r")
        room.apply(.joined(you: ParticipantID("me"), peers: [ParticipantID("peer-a")]))
        let states: [PeerConnectionState] = [.connecting, .connected, .disconnected, .connected]
        let writerSpan = Mutex<Double>(0)
        let writer = Thread {
            let started = Date()
            for (i, state) in states.enumerated() {
                if i > 0 { usleep(12_000) }
                queue.push(.peerState(id, state, cause: "test"))
            }
            writerSpan.withLock { $0 = Date().timeIntervalSince(started) }
        }
        writer.start()
        var seen: [ConnectionState] = []
        let start = Date()
        while Date().timeIntervalSince(start) < 0.3 {
            for event in feed.update(now: Date().timeIntervalSince(start)).events where room.apply(event) == .changed {
                if case .connectionChanged = event, let p = room.participant(ParticipantID("peer-a")) { seen.append(p.connection) }
            }
            usleep(33_000)   // the screen's tick
        }
        let span = writerSpan.withLock { $0 }
        #expect(span > 0 && span < 0.05, "the four changes took \(span) s")
        #expect(seen == [.connecting, .connected, .disconnected, .connected])
    }

    /// A peer starts sharing its screen (a renegotiation adds a video section) and stops again: the room gets a tile
    /// "Zoe · 2" right after Zoe's, with the section's shape, and loses it.
    @Test func aSharedScreenComesAndGoesAsATileAfterItsParticipant() {
        let queue = CallEventQueue()
        let id = RemotePeerID("z")
        var feed = CallScreenFeed(takeSessionEvents: { [] }, takeCallEvents: { queue.take() },
                                  snapshot: { CallSnapshot(you: nil, elapsed: 0, local: Self.idle, peers: [:]) })
        var room = Room(roomName: "r")
        room.apply(.joined(you: ParticipantID("me"), peers: [ParticipantID("z"), ParticipantID("b")]))
        room.apply(.nameChanged(ParticipantID("z"), "Zoe"))
        func step(_ now: Double) { for event in feed.update(now: now).events { room.apply(event) } }
        queue.push(.videoStreams(id, mids: ["0"]))
        queue.push(.videoSize(id, width: 640, height: 480))
        step(0)
        #expect(room.gridOrder.map(\.id.description) == ["me", "z", "b"])
        queue.push(.videoStreams(id, mids: ["0", "3"]))
        queue.push(.streamVideoSize(id, mid: "3", width: 1600, height: 1000))
        step(1)
        #expect(room.gridOrder.map(\.id.description) == ["me", "z", "z/3", "b"])
        #expect(room.gridOrder.map(TileLabel.name(of:)) == ["you", "Zoe", "Zoe · 2", "b"])
        #expect(room.tile(TileID(ParticipantID("z"), stream: "3"))?.videoAspect == 1.6)
        queue.push(.videoStreams(id, mids: ["0"]))
        step(2)
        #expect(room.gridOrder.map(\.id.description) == ["me", "z", "b"])
    }

    static let idle = LocalMediaSnapshot(source: "card", toneHz: 0, muted: false, videoEnabled: true, videoBitrateKbps: 300,
                                         videoFramesEncoded: 0, keyframesEncoded: 0, audioFramesEncoded: 0,
                                         audioDTXFrames: 0, audioInputNote: "", inputLevel: 0)
}
