import Engine
import Foundation
import Synchronization

/// The demo's other participants: real WebRTC peers in this process (each a `RoomSession` with its own `Call`,
/// exactly what `conftui bot` runs), each with its own test card colour and tone. They take turns talking, 3 s
/// each, so the speaking highlight moves around the grid as it would in a meeting.
final class SyntheticParticipants: Sendable {
    static let names = ["Ada", "Grace", "Linus", "Radia", "Ken", "Barbara", "Dennis", "Margaret", "Edsger", "Frances", "Alan"]
    static let turnSeconds = 3.0
    let sessions: [any RoomSession]
    private let running = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(true)

    /// Joins `count` participants to `room` on `url`, one after another (join order = grid order).
    init(count: Int, url: String, room: String, hostCandidates: Call.HostCandidates, log: @escaping @Sendable (String) -> Void) throws {
        var sessions: [any RoomSession] = []
        for k in 0..<count {
            let name = Self.names[k % Self.names.count]
            var options = Call.Options()
            options.hostCandidates = hostCandidates
            options.media.camera = "demo-card"    // the whole picture moves, as a person does
            options.media.participant = CallOptionsParsing.participantNumber(name)
            // A chord of distinct tones (330, 440, 550, ... Hz): each speaker is recognisable.
            options.media.toneHz = 330 + 110 * Double(k)
            options.log = { log("\(name): " + $0) }
            let session = try RoomSessions.open(.init(url: url, room: room, name: name), callOptions: options,
                                               log: { log("\(name): " + $0) })
            do {
                try session.start()
            } catch {
                for s in sessions { s.leave() }
                throw error
            }
            sessions.append(session)
        }
        self.sessions = sessions
    }

    /// Starts the talking turns: participant k talks while the others are muted (they send silence, as a muted
    /// microphone does).
    func startTalkingTurns() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing), !sessions.isEmpty else { return }
        finished.withLock { $0 = false }
        let thread = Thread { [self] in
            let start = MediaPipeline.wallClock()
            var speaking = -1
            while running.load(ordering: .acquiring) {
                let turn = Int((MediaPipeline.wallClock() - start) / Self.turnSeconds) % sessions.count
                if turn != speaking {
                    speaking = turn
                    for (k, s) in sessions.enumerated() { s.call.media.setMuted(k != turn) }
                }
                usleep(100_000)
            }
            finished.withLock { $0 = true }
        }
        thread.name = "demo-turns"
        thread.start()
    }

    func leave() {
        running.store(false, ordering: .releasing)
        for _ in 0..<50 where !finished.withLock({ $0 }) { usleep(10_000) }
        for s in sessions { s.leave() }
    }
}
