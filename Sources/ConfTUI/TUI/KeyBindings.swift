/// What is shown over the grid.
enum Overlay: Equatable {
    case none, help, stats, invite, confirmLeave
}

/// What a key asks for. The UI loop carries these out; the mapping itself is pure.
enum UIAction: Equatable {
    case toggleMute, toggleVideo, switchCamera
    case askLeave, leave, quit
    case toggleHelp, toggleStats, toggleInvite, closeOverlay
    case redraw, resize
    /// The chat: `t` shows or hides the pane, Enter opens the input, PgUp/PgDn scroll the log.
    case toggleChat, openChatInput, scrollChatBack, scrollChatForward
    /// While the input is open: an edit of the line, Enter sends it, Esc drops it.
    case editChat(LineEditor.Edit), sendChat, cancelChat
    /// The oldest file offer still waiting: `a` accepts it, `r` refuses it.
    case acceptFile, refuseFile
    case none
}

enum KeyBindings {
    /// Every key, as the help overlay, `--help` and the README list them.
    static let help: [(key: String, what: String)] = [
        ("m", "mute / unmute your microphone"),
        ("v", "video on / off (others see your placeholder)"),
        ("c", "switch camera: cycle through the video sources"),
        ("s", "show / hide call statistics"),
        ("t", "show / hide the chat (PgUp/PgDn scroll it)"),
        ("Enter", "type a chat message: Enter sends, Esc cancels; /send PATH offers a file"),
        ("a / r", "accept / refuse the file offered (saved in --download-dir)"),
        ("i", "invite others: the browser URL and the conftui join command"),
        ("?", "show / hide this help"),
        ("l", "leave the call (asks to confirm: y leaves)"),
        ("q", "quit at once"),
        ("Ctrl-L", "redraw the screen"),
        ("Esc", "close an overlay"),
    ]

    /// `typing`: the chat's input is open, and every printable key is text (m, q and the rest do not act on the call).
    static func action(for key: Key, overlay: Overlay, typing: Bool = false) -> UIAction {
        if key == .resize { return .resize }
        if typing { return typingAction(for: key) }
        if overlay == .confirmLeave {
            // Only an explicit yes leaves; any other key (including Enter) stays in the call.
            if case .character(let c) = key, c == "y" || c == "Y" { return .leave }
            return .closeOverlay
        }
        switch key {
        case .character(let c):
            switch c {
            case "m", "M": return .toggleMute
            case "v", "V": return .toggleVideo
            case "c", "C": return .switchCamera
            case "l", "L": return .askLeave
            case "q", "Q": return .quit
            case "?", "h", "H": return .toggleHelp
            case "s", "S": return .toggleStats
            case "i", "I": return .toggleInvite
            case "a", "A": return overlay == .none ? .acceptFile : .none
            case "r", "R": return overlay == .none ? .refuseFile : .none
            case "t", "T": return overlay == .none ? .toggleChat : .none
            case "\n", "\r": return overlay == .none ? .openChatInput : .closeOverlay
            case "\u{0c}": return .redraw               // Ctrl-L
            case "\u{1b}": return overlay == .none ? .none : .closeOverlay
            default: return .none
            }
        case .named(let named):
            switch named {
            case .enter: return overlay == .none ? .openChatInput : .closeOverlay
            case .pageUp: return .scrollChatBack
            case .pageDown: return .scrollChatForward
            default: return .none
            }
        case .special, .resize:
            return .none
        }
    }

    /// Keys while the chat's input is open. Enter comes as LF, CR or KEY_ENTER, Backspace as KEY_BACKSPACE, DEL or
    /// Ctrl-H, depending on the terminal: all of them work.
    private static func typingAction(for key: Key) -> UIAction {
        switch key {
        case .character(let c):
            switch c {
            case "\n", "\r": return .sendChat
            case "\u{1b}": return .cancelChat
            case "\u{7f}", "\u{08}": return .editChat(.backspace)
            case "\u{01}": return .editChat(.home)              // Ctrl-A
            case "\u{05}": return .editChat(.end)               // Ctrl-E
            case "\u{15}": return .editChat(.clearToStart)      // Ctrl-U
            case "\u{17}": return .editChat(.deleteWordBack)    // Ctrl-W
            case "\u{0c}": return .redraw                       // Ctrl-L
            case "\t": return .editChat(.insert(" "))
            default:
                // Other control characters are not text; everything printable is, call keys included.
                return c.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } ? .editChat(.insert(c)) : .none
            }
        case .named(let named):
            switch named {
            case .enter: return .sendChat
            case .backspace: return .editChat(.backspace)
            case .delete: return .editChat(.delete)
            case .left: return .editChat(.left)
            case .right: return .editChat(.right)
            case .home: return .editChat(.home)
            case .end: return .editChat(.end)
            case .pageUp: return .scrollChatBack
            case .pageDown: return .scrollChatForward
            }
        case .special, .resize:
            return .none
        }
    }
}
