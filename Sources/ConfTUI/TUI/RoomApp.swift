import enum Engine.MonotonicClock
import RoomModel
#if canImport(Glibc)
import Glibc
#endif

/// The interactive room screen: reads keys, feeds the Room, draws. The same loop serves the
/// simulated demo and the real call; they differ only in where events come from and what the
/// keys do to media (`Controls`).
final class RoomApp {
    /// What the keys ask of the media (the real call mutes its encoder, etc.). The room changes when the media layer
    /// reports the change back through the event source (`LocalAction`), so it shows what is done, not what was asked.
    struct Controls {
        var setMuted: (Bool) -> Void = { _ in }
        var setVideo: (Bool) -> Void = { _ in }
        /// Switches to the next video source and returns its name (nil: nothing to switch to).
        var nextSource: () -> String? = { nil }
        var leave: () -> Void = {}
        /// The largest remote tile's picture size after each draw (what the room should send us).
        var remotePictureSize: (Int, Int) -> Void = { _, _ in }
        /// Sends a chat message to the whole room; it is shown when the call reports it back (`LocalAction.sentChat`).
        /// Nil where the call cannot carry chat yet: the input does not open and a notice says so.
        var sendChat: ((String) -> Void)?
        /// Answer the oldest file offer still waiting; each returns what to say, nil when nothing waits.
        var acceptFile: () -> String? = { nil }
        var refuseFile: () -> String? = { nil }
    }

    static let chatUnavailable = "this screen has no room to chat with"
    /// Entries PgUp and PgDn move the chat by.
    static let chatScrollStep = 5

    private(set) var room: Room
    private let curses = Curses()
    private let view: RoomView
    private let controls: Controls
    private let painter: VideoPainter?
    private let useColor: Bool
    private let invite: Invite?
    private var overlay: Overlay = .none
    private var notice: (text: String, until: Double)?
    private var chat = ChatPaneState()

    /// - Parameter invite: how others join (the `i` overlay and the foot of the help); nil where nobody can (the
    ///   simulated room), which the overlay says.
    init(room: Room, server: String, invite: Invite?, controls: Controls, painter: VideoPainter?, useColor: Bool) {
        self.room = room
        self.invite = invite
        self.controls = controls
        self.painter = painter
        self.useColor = useColor
        view = RoomView(curses: curses, status: StatusLine(server: server))
        chat.canSend = controls.sendChat != nil
    }

    /// What the event source has for the screen since the last call.
    struct Update {
        var events: [RoomEvent] = []
        /// A line for the status bar (e.g. "signaling lost, reconnecting in 2 s").
        var notice: String?
        /// Ends the screen with this status (e.g. the connection ended and reconnecting is off).
        var exit: Int32?
    }

    /// Runs until the user quits or leaves, or a stop signal arrives. Returns the exit status.
    /// `events(now)` yields what happened since the last call; `now` is seconds since start.
    func run(events: (Double) -> [RoomEvent]) throws -> Int32 {
        try run(updates: { Update(events: events($0)) })
    }

    func run(updates: (Double) -> Update) throws -> Int32 {
        TerminalGuard.install()
        curses.start(tickMilliseconds: 33, useColor: useColor)
        defer { curses.stop() }
        let start = MonotonicClock.now()
        var lastDraw = -1.0
        while true {
            let sig = TerminalGuard.stopRequested.load(ordering: .relaxed)
            if sig != 0 { return 128 + sig }
            let now = MonotonicClock.now() - start
            var dirty = false
            if let key = curses.readKey() {
                switch handle(KeyBindings.action(for: key, overlay: overlay, typing: chat.isTyping), now: now) {
                case .exit(let status): return status
                case .redraw: dirty = true
                case .nothing: break
                }
            }
            let update = updates(now)
            for event in update.events where room.apply(event) == .changed { dirty = true }
            if let text = update.notice { say(text, now: now); dirty = true }
            if let status = update.exit { return status }
            if let n = notice, now >= n.until { notice = nil; dirty = true }
            // Levels and video move continuously: redraw at least 15 times a second.
            if dirty || now - lastDraw >= 1.0 / 15 {
                view.draw(room, overlay: overlay, invite: invite, painter: painter, notice: notice?.text, chat: chat)
                if let size = view.largestRemoteVideoPixels { controls.remotePictureSize(size.width, size.height) }
                lastDraw = now
            }
        }
    }

    private enum Outcome { case exit(Int32), redraw, nothing }

    private func handle(_ action: UIAction, now: Double) -> Outcome {
        switch action {
        case .none: return .nothing
        case .toggleMute:
            let muted = !room.local.audioMuted
            controls.setMuted(muted)
            say(muted ? "microphone muted" : "microphone on", now: now)
        case .toggleVideo:
            let on = !room.local.videoOn
            controls.setVideo(on)
            say(on ? "video on" : "video off", now: now)
        case .switchCamera:
            if let name = controls.nextSource() {
                say("camera: \(name)", now: now)
            } else {
                say("no other video source", now: now)
            }
        case .askLeave: overlay = .confirmLeave
        case .leave:
            overlay = .none
            controls.leave()
            room.apply(.left)
            return .exit(0)
        case .quit:
            controls.leave()
            return .exit(0)
        case .toggleHelp: overlay = overlay == .help ? .none : .help
        case .toggleStats: overlay = overlay == .stats ? .none : .stats
        case .toggleInvite: overlay = overlay == .invite ? .none : .invite
        case .closeOverlay: overlay = .none
        case .toggleChat:
            room.apply(.local(.setChatVisible(!room.chat.isVisible)))
            // An empty pane in a call that cannot carry text says why, once, rather than looking broken.
            if controls.sendChat == nil && room.chat.entries.isEmpty {
                room.apply(.chatNotice(RoomApp.chatUnavailable, at: wallClockSeconds()))
            }
        case .openChatInput:
            guard controls.sendChat != nil else {
                say(RoomApp.chatUnavailable, now: now)
                return .redraw
            }
            room.apply(.local(.setChatVisible(true)))
            chat.editor = LineEditor()
        case .scrollChatBack, .scrollChatForward:
            chat.anchor = ChatPaneLayout.scrolled(room.chat.entries, anchor: chat.anchor,
                                                  back: action == .scrollChatBack, step: RoomApp.chatScrollStep)
        case .editChat(let edit):
            chat.editor?.apply(edit)
        case .sendChat:
            let text = chat.editor?.text ?? ""
            chat.editor = nil
            if !text.allSatisfy(\.isWhitespace) { controls.sendChat?(text) }
        case .cancelChat:
            chat.editor = nil
        case .acceptFile:
            say(controls.acceptFile() ?? "no file offered", now: now)
        case .refuseFile:
            say(controls.refuseFile() ?? "no file offered", now: now)
        case .redraw, .resize:
            curses.forceFullRepaint()
            painter?.invalidate()
        }
        return .redraw
    }

    private func say(_ text: String, now: Double) { notice = (text, now + 2.5) }
}
