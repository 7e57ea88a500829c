import Engine
#if canImport(Glibc)
import Glibc
#endif
import Renderer
import RoomModel
import Signaling

/// The room screen on a real call: `RoomApp` fed by a `RoomSession`. Keys act on the call (m mutes what the others
/// hear, v stops sending video, c switches the source they see, l leaves the room); tiles show the decoded video of
/// each peer (and of each screen it shares) and the local preview; the status bar says when signaling is lost and when
/// the next attempt is.
struct CallScreen {
    /// Names kept for `--report` (each at most a display name's 256 bytes): far more than a room's participants.
    static let maxReportedNames = 1_024

    let session: RoomSession
    let serverLabel: String
    let color: ColorChoice
    /// `--report FILE`: the JSON report (as `bot` writes it), refreshed every 2 s during the call and at the end.
    var reportPath: String?
    var reportName = ""
    /// `--latency-log FILE`: one line per remote test-card frame that reached the terminal, `TIME socketId capture→paint
    /// ms` (both ends read the wall clock: glass-to-glass as far as a terminal program can see it).
    var latencyLogPath: String?
    /// How others join (the `i` overlay).
    var invite: Invite?

    func run() throws -> Int32 {
        let call = session.call
        let start = MonotonicClock.now()
        // The media layer is the one truth about what we send (`--muted`, `--no-video` were applied to it already);
        // later changes arrive as call events.
        let local = call.media.localState
        var room = Room(roomName: session.roomShown, localName: session.settings.name, sourceName: local.source)
        room.apply(.local(.setMuted(local.audioMuted)))
        room.apply(.local(.setVideoOn(local.videoOn)))
        var controls = RoomApp.Controls()
        controls.setMuted = { call.media.setMuted($0) }
        controls.setVideo = { call.media.setVideoEnabled($0) }
        controls.nextSource = {
            guard let next = call.media.nextSourceName else { return nil }
            call.media.switchSource()
            return next
        }
        controls.leave = { session.leave() }
        controls.remotePictureSize = { session.wantPictures(width: $0, height: $1) }
        let chatFeed = CallChatFeed(messaging: session.messaging)
        controls.sendChat = { chatFeed.send($0) }
        controls.acceptFile = { chatFeed.acceptOldest() }
        controls.refuseFile = { chatFeed.refuseOldest() }
        let painter = TerminalVideoPainter(colorMode: color.renderMode(environment: environmentVariables()),
                                           clock: { MonotonicClock.now() - start }) { tile in
            let p = tile.participant
            // A further stream is a video section of its own (a shared screen): the camera's off switch is not its.
            if let stream = tile.stream {
                return p.isLocal ? nil : call.latestFrame(of: RemotePeerID(p.id.rawValue), mid: stream.id)
            }
            guard p.videoOn else { return nil }
            return p.isLocal ? call.media.latestLocalFrame : call.latestFrame(of: RemotePeerID(p.id.rawValue))
        }
        let latencyLog = try latencyLogPath.map { try SignalingLog(path: $0) }
        if let latencyLog {
            painter.onFramePainted = { participant, frame in
                guard let code = TestCard.decode(frame) else { return }
                let now = UInt32(truncatingIfNeeded: Int64((MediaPipeline.wallClock() * 1000).rounded(.down)))
                latencyLog.write("\(participant.id.rawValue) \(Int32(bitPattern: now &- code.captureMillis))")
            }
        }
        let app = RoomApp(room: room, server: serverLabel, invite: invite, controls: controls, painter: painter, useColor: color.allowsColor)
        var feed = CallScreenFeed(session: session)
        var lastReport = 0.0
        let startedAt = MediaPipeline.wallClock()
        let reportWriter = reportPath.map(PeriodicReportWriter.init(path:))
        let name = reportName
        // The names the room gave the others (display names in a Janus room), for the report as `bot` writes them:
        // read on this thread, where the room model lives, and kept after they leave (the last report names everyone
        // it lists), up to a bound; past it, only those in the room now.
        var known: [RemotePeerID: String] = [:]
        func learnNames() {
            let now: [RemotePeerID: String] = app.room.participants.reduce(into: [:]) { names, p in
                if !p.isLocal, let given = p.name { names[RemotePeerID(p.id.rawValue)] = given }
            }
            known = known.count > Self.maxReportedNames ? now : known.merging(now) { $1 }
        }
        defer {
            learnNames()
            session.leave()
            reportWriter?.writeNow(CallReport(session: session, name: name, startedAt: startedAt, endReason: "left", names: known))
        }
        return try app.run { now in
            var update = feed.update(now: now)
            update.events += chatFeed.events { peer in
                app.room.participant(ParticipantID(peer.rawValue))?.displayName ?? String(peer.rawValue.prefix(8))
            }
            if session.endReason != nil { update.exit = 1 }
            if let reportWriter, now - lastReport >= 2 {
                lastReport = now
                learnNames()
                reportWriter.writeInBackground { [session, known] in
                    CallReport(session: session, name: name, startedAt: startedAt, endReason: "running", names: known)
                }
            }
            return update
        }
    }
}
