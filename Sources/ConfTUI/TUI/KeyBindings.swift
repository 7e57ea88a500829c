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
    case none
}

enum KeyBindings {
    /// Every key, as the help overlay, `--help` and the README list them.
    static let help: [(key: String, what: String)] = [
        ("m", "mute / unmute your microphone"),
        ("v", "video on / off (others see your placeholder)"),
        ("c", "switch camera: cycle through the video sources"),
        ("s", "show / hide call statistics"),
        ("i", "invite others: the browser URL and the conftui join command"),
        ("?", "show / hide this help"),
        ("l", "leave the call (asks to confirm: y leaves)"),
        ("q", "quit at once"),
        ("Ctrl-L", "redraw the screen"),
        ("Esc", "close an overlay"),
    ]

    static func action(for key: Key, overlay: Overlay) -> UIAction {
        if key == .resize { return .resize }
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
            case "\u{0c}": return .redraw               // Ctrl-L
            case "\u{1b}": return overlay == .none ? .none : .closeOverlay
            default: return .none
            }
        case .special, .resize:
            return .none
        }
    }
}
