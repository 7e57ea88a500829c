import Engine
import Signaling
import Foundation
import Synchronization

/// The demo's other participants: real WebRTC peers in this process (each a `RoomSession` with its own `Call`,
/// exactly what `conftui bot` runs). Each shows a drawn face with its name (`--camera face`) and talks with a
/// synthetic voice (`MicrophoneChoice.speech`), both from its seat's script in `talk`: they take turns of 4 s, so the
/// speaking mark moves around the grid as it would in a meeting, and the mouths move with the voices. The one
/// scripted mute (Grace's, `DemoTalk`) is carried out here, through her call as the `m` key would.
final class SyntheticParticipants: Sendable {
    static let names = ["Ada", "Grace", "Linus", "Radia", "Ken", "Barbara", "Dennis", "Margaret", "Edsger", "Frances", "Alan"]
    let sessions: [any RoomSession]
    let talk: DemoTalk
    private let running = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(true)

    /// Joins `count` participants to `room` on `url`, one after another (join order = grid order = seat order in `talk`).
    /// `camera` is their video source: `face` (the default) or another synthetic one (`demo --peer-camera`).
    init(count: Int, talk: DemoTalk, url: String, room: String, hostCandidates: Call.HostCandidates, camera: String = "face",
         log: @escaping @Sendable (String) -> Void) throws {
        self.talk = talk
        var sessions: [any RoomSession] = []
        var ids: [RemotePeerID] = []
        for k in 0..<count {
            let name = Self.names[k % Self.names.count]
            var options = Call.Options()
            options.hostCandidates = hostCandidates
            options.media.camera = camera
            options.media.participant = CallOptionsParsing.participantNumber(name)
            options.media.displayName = name
            // The voice and the face's mouth say the same script.
            options.media.audioInput = .speech(talk.script(seat: k))
            options.log = { log("\(name): " + $0) }
            // They take no files: nobody would answer an offer, and a demo must not write files.
            var messaging = RoomMessaging.Configuration()
            messaging.filePolicy = .refuseAll
            let session = try RoomSessions.open(.init(url: url, room: room, name: name), callOptions: options,
                                               messaging: messaging, log: { log("\(name): " + $0) })
            do {
                ids.append(try session.start())
            } catch {
                for s in sessions { s.leave() }
                throw error
            }
            sessions.append(session)
        }
        self.sessions = sessions
        self.ids = Set(ids)
    }

    /// Their own ids: a chat line from anyone else is someone to answer.
    let ids: Set<RemotePeerID>

    /// The scripted chat over the real data channels: `DemoChat`'s lines from whoever's turn it is, and an answer a
    /// second after each line someone else (you, a browser) writes, by name when the room knows it.
    private struct ChatScript {
        var toldUpTo = -1.0
        var heard = 0
        var answers: [(at: Double, seat: Int, text: String)] = []
        var names: [RemotePeerID: String] = [:]
    }

    private func chatRound(_ script: inout ChatScript, now: Double) {
        guard let first = sessions.first else { return }
        let t = now - talk.epoch
        for n in DemoChat(seats: sessions.count, localName: "").due(after: script.toldUpTo, upTo: t) {
            let line = DemoChat(seats: sessions.count, localName: "").scripted(n)
            sessions[line.seat].messaging.say(line.text)
        }
        script.toldUpTo = t
        for event in first.takeEvents() {
            switch event {
            case .joined(_, _, let known, _): script.names.merge(known) { $1 }
            case .peerJoined(let peer, let name): if let name { script.names[peer] = name }
            default: break
            }
        }
        // Seat 0 hears every line: it counts the others' and the answers go round the seats.
        for event in first.messaging.takeEvents() {
            guard case .chat(let from, _, _) = event, !ids.contains(from), script.answers.count < 8 else { continue }
            let answer = DemoChat(seats: sessions.count, localName: script.names[from] ?? "there").answer(script.heard)
            script.heard += 1
            script.answers.append((now + DemoChat.answerDelay, answer.seat, answer.text))
        }
        while let due = script.answers.first, due.at <= now {
            script.answers.removeFirst()
            sessions[due.seat].messaging.say(due.text)
        }
        // The others' events are not read by anyone: drained, so nothing piles up over a long demo.
        for s in sessions.dropFirst() {
            _ = s.takeEvents()
            _ = s.messaging.takeEvents()
        }
    }

    /// Starts carrying out the script: the mutes (`DemoTalk.isMuted`: a participant's call muted or unmuted when the
    /// script says so, as the `m` key would) and the chat (`chatRound`), on a thread that looks ten times a second.
    /// The talking itself needs no thread: each call's microphone and camera follow the script on their own.
    func startScriptedMutes() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing), !sessions.isEmpty else { return }
        finished.withLock { $0 = false }
        let thread = Thread { [self] in
            var muted = [Bool](repeating: false, count: sessions.count)
            var chat = ChatScript(toldUpTo: MediaPipeline.wallClock() - talk.epoch)
            while running.load(ordering: .acquiring) {
                let now = MediaPipeline.wallClock()
                chatRound(&chat, now: now)
                for (k, s) in sessions.enumerated() {
                    let wanted = talk.isMuted(seat: k, at: now)
                    if wanted != muted[k] {
                        muted[k] = wanted
                        s.call.media.setMuted(wanted)
                    }
                }
                usleep(100_000)
            }
            finished.withLock { $0 = true }
        }
        thread.name = "demo-mutes"
        thread.start()
    }

    func leave() {
        running.store(false, ordering: .releasing)
        for _ in 0..<50 where !finished.withLock({ $0 }) { usleep(10_000) }
        for s in sessions { s.leave() }
    }
}
