import RoomModel
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The one place that talks to ncursesw. Owned by the UI thread only (curses is not thread-safe),
/// hence a plain non-Sendable class.
final class Curses {
    /// Chrome colour pairs (fixed numbers; video never goes through curses pairs, see TileCanvas).
    enum Pair: Int16 {
        case status = 1, label, labelSpeaking, labelLocal, overlay, meter, warning, dim
    }

    private(set) var hasColor = false
    private var started = false

    init() {}

    /// Enters curses mode. `TerminalGuard.install()` must have run first.
    func start(tickMilliseconds: Int32, useColor: Bool) {
        setlocale(LC_ALL, "")
        _ = initscr()
        started = true
        cbreak()          // Ctrl-C still raises SIGINT, which TerminalGuard turns into a clean quit
        noecho()
        nonl()
        keypad(cnc_stdscr(), true)
        curs_set(0)
        // Esc alone (cancel the chat input, close an overlay) should not wait a whole second to be told apart from
        // the start of an arrow key's sequence, which arrives in one read.
        set_escdelay(100)
        wtimeout(cnc_stdscr(), tickMilliseconds)
        if useColor && has_colors() {
            start_color()
            use_default_colors()
            hasColor = true
            let c = cnc_colors()
            let gray: Int16 = c >= 256 ? 240 : Int16(COLOR_BLACK)
            init_pair(Pair.status.rawValue, Int16(COLOR_BLACK), Int16(COLOR_CYAN))
            init_pair(Pair.label.rawValue, Int16(COLOR_WHITE), -1)
            init_pair(Pair.labelSpeaking.rawValue, Int16(COLOR_BLACK), Int16(COLOR_GREEN))
            init_pair(Pair.labelLocal.rawValue, Int16(COLOR_CYAN), -1)
            init_pair(Pair.overlay.rawValue, Int16(COLOR_WHITE), Int16(COLOR_BLUE))
            init_pair(Pair.meter.rawValue, Int16(COLOR_GREEN), -1)
            init_pair(Pair.warning.rawValue, Int16(COLOR_YELLOW), -1)
            init_pair(Pair.dim.rawValue, gray, -1)
        }
    }

    /// Leaves curses mode and restores the terminal modes saved before it started.
    func stop() {
        guard started else { return }
        started = false
        curs_set(1)
        endwin()
        TerminalGuard.restoreModes()
    }

    var size: (columns: Int, rows: Int) { (Int(cnc_cols()), Int(cnc_lines())) }

    /// The next key, or nil when the tick passed without one.
    func readKey() -> Key? {
        var ch: wint_t = 0
        let rc = wget_wch(cnc_stdscr(), &ch)
        if rc == ERR { return nil }
        if rc == KEY_CODE_YES {
            let code = Int32(ch)
            if code == KEY_RESIZE { return .resize }
            return Curses.namedKeys[code].map(Key.named) ?? .special(code)
        }
        guard let scalar = Unicode.Scalar(UInt32(ch)) else { return nil }
        return .character(Character(scalar))
    }

    /// The special keys the screen acts on (the chat's input and scrolling), by their curses codes.
    private static let namedKeys: [Int32: NamedKey] = [
        KEY_ENTER: .enter, KEY_BACKSPACE: .backspace, KEY_DC: .delete, KEY_LEFT: .left, KEY_RIGHT: .right,
        KEY_HOME: .home, KEY_END: .end, KEY_PPAGE: .pageUp, KEY_NPAGE: .pageDown,
    ]

    /// Shows the terminal cursor at (x, y) (the chat's input), or hides it (nil).
    func showCursor(at position: (x: Int, y: Int)?) {
        if let position {
            wmove(cnc_stdscr(), Int32(position.y), Int32(position.x))
            curs_set(1)
        } else {
            curs_set(0)
        }
    }

    func erase() { werase(cnc_stdscr()) }
    func refresh() { wrefresh(cnc_stdscr()) }
    func noutrefresh() { wnoutrefresh(cnc_stdscr()) }
    func flush() { doupdate() }
    /// The next refresh repaints everything (Ctrl-L, after raw video output was disturbed).
    func forceFullRepaint() { clearok(cnc_stdscr(), true) }

    /// Writes `text` at (x, y), cut to `maxWidth` columns and to the screen edge.
    func put(_ text: String, x: Int, y: Int, maxWidth: Int = .max, pair: Pair? = nil, bold: Bool = false, reverse: Bool = false) {
        let (cols, rows) = size
        guard y >= 0, y < rows, x < cols, maxWidth > 0 else { return }
        var start = x
        // Whatever the text is (a server's error, a close reason, a name), no control or format character reaches
        // the terminal through here (`SafeText`).
        var shown = Substring(SafeText.stripped(text))
        // Columns, not scalars (`DisplayWidth`): a wide character takes two cells, a combining mark none, and a
        // cut never falls inside a character.
        while start < 0, let first = shown.first {
            shown.removeFirst()
            start += DisplayWidth.of(first)
        }
        let room = min(maxWidth, cols - start)
        let kept = DisplayWidth.clip(String(shown), columns: room)
        // The bottom-right cell too: with scrolling off, curses places it (the call reports an error only
        // because the cursor cannot move past it) and draws it without scrolling (insert mode), so the
        // status bar spans the whole row.
        let scalars = Array(kept.unicodeScalars)
        guard !scalars.isEmpty else { return }
        var attrs: attr_t = 0
        if hasColor, let p = pair { attrs |= cnc_color_pair(Int32(p.rawValue)) }
        if bold { attrs |= CNC_A_BOLD }
        if reverse { attrs |= CNC_A_REVERSE }
        let win = cnc_stdscr()
        wattr_on(win, attrs, nil)
        var wide = scalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        mvwaddnwstr(win, Int32(y), Int32(start), wide, Int32(scalars.count))
        wattr_off(win, attrs, nil)
    }

    /// Fills a rectangle with spaces in the given pair (backgrounds of bars and overlays).
    func fill(x: Int, y: Int, width: Int, height: Int, pair: Pair? = nil, reverse: Bool = false) {
        guard width > 0 else { return }
        let line = String(repeating: " ", count: width)
        for row in y..<(y + height) { put(line, x: x, y: row, pair: pair, reverse: reverse) }
    }
}

/// A key press as the UI sees it.
enum Key: Equatable {
    case character(Character)
    /// A special key the screen knows by name (curses' codes translated in `Curses.readKey`).
    case named(NamedKey)
    case special(Int32)
    case resize
}

enum NamedKey: Equatable {
    case enter, backspace, delete, left, right, home, end, pageUp, pageDown
}
