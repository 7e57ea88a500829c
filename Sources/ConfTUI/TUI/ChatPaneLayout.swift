import RoomModel

/// Where the chat pane goes and what its log rows say (pure; `RoomView` draws them). The pane shares the screen with
/// the grid rather than covering it: on a terminal wide enough it is a column on the right, else rows at the bottom,
/// and the grid is laid out in what is left, so every tile keeps its video (smaller).
enum ChatPaneLayout {
    /// From this many columns the pane is a column on the right; narrower terminals get it at the bottom.
    static let sideBySideColumns = 100
    static let minColumnWidth = 30

    /// `area`: the screen above the status bar. Returns the grid's area and the pane's.
    static func split(_ area: CellRect) -> (grid: CellRect, pane: CellRect) {
        if area.width >= sideBySideColumns {
            let width = max(minColumnWidth, area.width / 3)
            return (CellRect(x: area.x, y: area.y, width: area.width - width, height: area.height),
                    CellRect(x: area.maxX - width, y: area.y, width: width, height: area.height))
        }
        let height = min(area.height, max(5, area.height / 3))
        return (CellRect(x: area.x, y: area.y, width: area.width, height: area.height - height),
                CellRect(x: area.x, y: area.maxY - height, width: area.width, height: height))
    }

    /// One row of the log as drawn: the text, and where the sender's name sits in it (drawn in their colour).
    struct Row: Equatable {
        var text: String
        var nameColumn = 0
        var name = ""
        var isLocal = false
        var isNotice = false
    }

    /// The rows that fill `height` rows of `width` columns, the newest at the bottom: entries up to and including the
    /// one with sequence `anchor` (nil: the newest), wrapped by display width. Only the entries that show are
    /// wrapped, so a full log costs no more than a screenful.
    static func rows(_ entries: [ChatEntry], anchor: Int?, width: Int, height: Int,
                     time: (Double) -> String) -> [Row] {
        guard width > 0, height > 0 else { return [] }
        let last = anchor.flatMap { a in entries.lastIndex { $0.sequence <= a } } ?? entries.count - 1
        guard last >= 0 else { return [] }
        var out: [Row] = []
        for entry in entries[...last].reversed() {
            out.insert(contentsOf: rows(for: entry, width: width, time: time), at: 0)
            if out.count >= height { break }
        }
        return Array(out.suffix(height))
    }

    /// "HH:MM Name: text" (a notice: "HH:MM text"), its further lines and wrapped rows indented by two columns.
    static func rows(for entry: ChatEntry, width: Int, time: (Double) -> String) -> [Row] {
        let stamp = time(entry.at) + " "
        let header = entry.kind == .notice ? stamp : stamp + entry.senderName + ": "
        var out: [Row] = []
        for (i, line) in entry.lines.enumerated() {
            let wrapped = i == 0 ? DisplayWidth.wrap(header + line, columns: width)
                                 : DisplayWidth.wrap(line, columns: max(1, width - 2)).map { "  " + $0 }
            for (j, text) in wrapped.enumerated() {
                var row = Row(text: text, isLocal: entry.isLocal, isNotice: entry.kind == .notice)
                // The name is coloured only where the whole of it is on the first row.
                if i == 0 && j == 0 && entry.kind == .message && text.hasPrefix(stamp + entry.senderName) {
                    row.nameColumn = DisplayWidth.of(stamp)
                    row.name = entry.senderName
                }
                out.append(row)
            }
        }
        return out
    }

    /// Entries newer than the anchor (they arrived, or were already there, below what a scrolled-back pane shows).
    static func newerCount(_ entries: [ChatEntry], anchor: Int?) -> Int {
        guard let anchor else { return 0 }
        return entries.reduce(0) { $0 + ($1.sequence > anchor ? 1 : 0) }
    }

    /// The anchor after PgUp (`back`) or PgDn by `step` entries; nil again once the newest is reached.
    static func scrolled(_ entries: [ChatEntry], anchor: Int?, back: Bool, step: Int) -> Int? {
        guard !entries.isEmpty else { return nil }
        let index = anchor.flatMap { a in entries.lastIndex { $0.sequence <= a } } ?? entries.count - 1
        let next = back ? max(0, index - step) : index + step
        return next >= entries.count - 1 ? nil : entries[next].sequence
    }
}

/// What the screen keeps about the pane besides the room's log: the input, when open, and the scroll position.
struct ChatPaneState: Equatable {
    /// The open input; nil when not typing.
    var editor: LineEditor?
    /// The sequence of the entry at the bottom of the pane while scrolled back; nil follows the newest, so a new message
    /// does not move what someone scrolled back to read.
    var anchor: Int?
    /// Whether this call can carry chat at all: where it cannot, the pane does not invite typing.
    var canSend = true
    var isTyping: Bool { editor != nil }
}
