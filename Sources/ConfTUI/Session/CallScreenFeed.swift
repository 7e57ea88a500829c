import Engine
import RoomModel

/// What the room screen learns from a call between two draws: the session's signaling events and the call's events,
/// every one in order (nothing is lost between two looks), then, ten times a second, a snapshot for what is measured
/// (levels, statistics). The sources are closures so a test can drive the same path without sockets.
struct CallScreenFeed {
    let takeSessionEvents: () -> [SessionEvent]
    let takeCallEvents: () -> [CallEvent]
    let snapshot: () -> CallSnapshot
    private var translator = CallRoomEvents()
    private var lastSnapshot = -1.0
    private var lastNotes = ""

    init(takeSessionEvents: @escaping () -> [SessionEvent], takeCallEvents: @escaping () -> [CallEvent],
         snapshot: @escaping () -> CallSnapshot) {
        self.takeSessionEvents = takeSessionEvents
        self.takeCallEvents = takeCallEvents
        self.snapshot = snapshot
    }

    init(session: any RoomSession) {
        let call = session.call
        self.init(takeSessionEvents: { session.takeEvents() }, takeCallEvents: { call.events.take() },
                  snapshot: { call.snapshot(analyseAudio: false, levelsOnly: true) })
    }

    mutating func update(now: Double) -> RoomApp.Update {
        var update = RoomApp.Update()
        for event in takeSessionEvents() {
            update.events += translator.events(from: event)
            switch event {
            case .peerLeft(let id): translator.forget(id)
            case .signalingLost(let reason, let retry?):
                update.notice = String(format: "signaling lost (%@), reconnecting in %.1f s", String(reason.prefix(40)), retry)
            case .signalingLost(_, nil):
                update.notice = "signaling lost"
            case .signalingInterrupted(let reason, let retry):
                update.notice = String(format: "signaling lost (%@), reconnecting in %.1f s; calls go on", String(reason.prefix(40)), retry)
            case .signalingResumed:
                update.notice = "signaling back, same place in the room"
            case .joined(let you, _, _, _) where now > 1:
                update.notice = "rejoined as \(CallRoomEvents.participant(you).short)"
            case .serverError(let text): update.notice = "server: \(text)"
            default: break
            }
        }
        for event in takeCallEvents() { update.events += translator.events(from: event, now: now) }
        // Ten snapshots a second: enough for meters; levels only (the frequency analysis is for bots).
        if now - lastSnapshot >= 0.1 {
            lastSnapshot = now
            let snapshot = snapshot()
            update.events += translator.events(from: snapshot, now: now)
            // What the microphone and speaker turned out to be (a fallback is worth a line in the status bar).
            let notes = [snapshot.local.audioInputNote, snapshot.playback?.note].compactMap { $0 }.joined(separator: "; ")
            if notes != lastNotes {
                lastNotes = notes
                if !notes.isEmpty { update.notice = notes }
            }
        }
        return update
    }
}
