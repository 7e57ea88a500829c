import Engine
import Foundation

/// The JSON report `bot --report` and `join --report` write when they end: who we were, why we ended, what we sent
/// and, per remote socketId, what arrived (frames, test-card counters, tone, RTT, loss, the connection timeline).
struct CallReport: Encodable {
    var name: String
    var room: String
    var you: RemotePeerID?
    var startedAt: Double
    var endReason: String
    var elapsed: Double
    /// Wall-clock time (Unix seconds) when the call started: the origin of every `...At` in `peers`.
    var callStartedAt: Double
    var local: LocalMediaSnapshot
    var peers: [RemotePeerID: PeerSnapshot]

    init(session: RoomSession, name: String, startedAt: Double, endReason: String) {
        let s = session.call.snapshot()
        self.name = name
        room = session.roomShown
        you = s.you
        self.startedAt = startedAt
        self.endReason = endReason
        elapsed = s.elapsed
        callStartedAt = MediaPipeline.wallClock() - s.elapsed
        local = s.local
        peers = s.peers
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
