import RoomModel
#if canImport(Glibc)
import Glibc
#endif

/// Drawing the chat pane: a separator towards the grid, a title row, the log (newest at the bottom) and the input.
extension RoomView {
    /// Draws the pane in `rect`; returns where the terminal cursor goes while typing (nil otherwise).
    func drawChatPane(_ log: ChatLog, state: ChatPaneState, in rect: CellRect) -> (x: Int, y: Int)? {
        guard rect.width >= 4, rect.height >= 3 else { return nil }
        // A column on the right gets a vertical rule on its left; rows at the bottom a horizontal rule on top.
        let sideways = rect.y == 0
        let inner: CellRect
        if sideways {
            for y in rect.y..<rect.maxY { curses.put("│", x: rect.x, y: y, pair: .dim) }
            inner = CellRect(x: rect.x + 2, y: rect.y, width: rect.width - 3, height: rect.height)
        } else {
            curses.put(String(repeating: "─", count: rect.width), x: rect.x, y: rect.y, pair: .dim)
            inner = CellRect(x: rect.x + 1, y: rect.y + 1, width: rect.width - 2, height: rect.height - 1)
        }
        guard inner.width > 2, inner.height >= 2 else { return nil }
        let newer = ChatPaneLayout.newerCount(log.entries, anchor: state.anchor)
        let title = newer > 0 ? "chat · ↓ \(newer) newer (PgDn)" : state.canSend ? "chat · t hides · Enter types" : "chat · t hides"
        curses.put(title, x: inner.x, y: inner.y, maxWidth: inner.width, pair: newer > 0 ? .warning : .dim, bold: newer > 0)
        let logHeight = inner.height - 2
        let rows = ChatPaneLayout.rows(log.entries, anchor: state.anchor, width: inner.width, height: logHeight,
                                       time: RoomView.clockTime)
        let top = inner.y + 1 + (logHeight - rows.count)
        for (i, row) in rows.enumerated() {
            let y = top + i
            curses.put(row.text, x: inner.x, y: y, maxWidth: inner.width, pair: row.isNotice ? .dim : .label)
            if !row.name.isEmpty {
                curses.put(row.name, x: inner.x + row.nameColumn, y: y, maxWidth: inner.width - row.nameColumn,
                           pair: row.isLocal ? .labelLocal : .label, bold: true)
            }
        }
        let inputY = inner.maxY - 1
        guard let editor = state.editor else {
            if state.canSend { curses.put("Enter to type", x: inner.x, y: inputY, maxWidth: inner.width, pair: .dim) }
            return nil
        }
        curses.put("> ", x: inner.x, y: inputY, pair: .labelLocal, bold: true)
        let shown = editor.visible(columns: inner.width - 2)
        curses.put(shown.text, x: inner.x + 2, y: inputY, maxWidth: inner.width - 2, pair: .label)
        return (inner.x + 2 + shown.cursorColumn, inputY)
    }

    /// "HH:MM" of wall-clock seconds in the local time zone.
    static func clockTime(_ seconds: Double) -> String {
        var t = time_t(seconds.isFinite ? min(max(seconds, 0), 1e11) : 0)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return "--:--" }
        let h = Int(parts.tm_hour), m = Int(parts.tm_min)
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }
}
