import RoomModel

/// Draws video into tile rectangles behind curses' back (see `VideoPainter`).
protocol VideoPainter: AnyObject {
    /// Whether there is a frame to show in this tile right now (the participant's main video or a further stream).
    func hasVideo(for tile: Tile) -> Bool
    /// Queues the tile's latest frame for `rect`; written by `flush()` after curses' refresh.
    func paint(_ tile: Tile, in rect: CellRect)
    /// Writes what `paint` queued. Called after curses has flushed its own output.
    func flush()
    /// Forget what the terminal shows: the next paint redraws every cell.
    func invalidate()
    /// Cells curses owns over the video (an overlay box), nil for none: the painter writes nothing there.
    func withhold(_ rect: CellRect?)
}

/// Draws the whole screen for a room: the grid (or list), labels, placeholders, the status bar
/// and any overlay. Chrome goes through curses; video through the painter.
final class RoomView {
    let curses: Curses
    let status: StatusLine
    private var lastLayout: GridLayout?
    /// The chat pane's rectangle in the last frame (nil: hidden): it takes cells the video had, or gives them back.
    private var lastPane: CellRect?
    private var lastOverlay: Overlay = .none
    /// Tiles that showed video in the last frame.
    private var lastVideo = Set<TileID>()
    /// The largest remote tile's video area in the last frame, in picture pixels (a cell is one pixel wide and two
    /// high): what a forwarding server's smaller simulcast layer must fill to be enough.
    private(set) var largestRemoteVideoPixels: (width: Int, height: Int)?

    init(curses: Curses, status: StatusLine) {
        self.curses = curses
        self.status = status
    }

    /// One frame of the UI. `painter` may be nil (no video support, e.g. monochrome tests).
    func draw(_ room: Room, overlay: Overlay, invite: Invite?, painter: VideoPainter?, notice: String?,
              chat: ChatPaneState = ChatPaneState()) {
        let (cols, rows) = curses.size
        let screen = CellRect(x: 0, y: 0, width: cols, height: max(0, rows - 1))
        // The pane shares the screen: the grid is laid out in what it leaves, so no tile's video is covered.
        let pane: CellRect? = room.chat.isVisible ? ChatPaneLayout.split(screen).pane : nil
        let area = room.chat.isVisible ? ChatPaneLayout.split(screen).grid : screen
        let order = room.gridOrder
        let byID = Dictionary(order.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let layout = GridLayout.make(for: order.map(\.id), in: area, aspect: { byID[$0]?.videoAspect ?? 4.0 / 3.0 })
        // Raw video cells are invisible to curses: whenever tiles move or an overlay opens or
        // closes, make curses repaint everything and the painter redraw every cell (on close this
        // is what brings back the video under the box, whose cells the painter left alone).
        if layout != lastLayout || overlay != lastOverlay || pane != lastPane {
            curses.forceFullRepaint()
            painter?.invalidate()
            lastLayout = layout
            lastOverlay = overlay
            lastPane = pane
        }
        curses.erase()
        var videoTiles: [(Tile, CellRect)] = []
        switch layout {
        case .tiles(let tiles, _):
            largestRemoteVideoPixels = tiles.filter { byID[$0.id]?.participant.isLocal == false }
                .map { (width: $0.video.width, height: $0.video.height * 2) }.max { $0.width * $0.height < $1.width * $1.height }
            for placed in tiles {
                guard let tile = byID[placed.id] else { continue }
                drawLabel(tile, at: placed)
                // "Video off" is the camera's, the main tile's: a shared screen shows whatever arrives.
                if tile.stream != nil || tile.participant.videoOn, let painter, painter.hasVideo(for: tile) {
                    videoTiles.append((tile, placed.video))
                } else {
                    drawPlaceholder(tile, in: placed.video)
                }
            }
        case .list(let rowsShown, let hidden):
            for row in rowsShown {
                guard let tile = byID[row.id] else { continue }
                drawListRow(tile, y: row.y, width: cols)
            }
            if hidden > 0 { curses.put("+\(hidden) more", x: 1, y: area.maxY - 1, pair: .dim) }
        }
        // A tile that stops showing video still has the old video cells on the terminal, where
        // curses believes there are blanks: repaint everything once so the placeholder is clean.
        // A tile that starts showing video had a placeholder curses now erases, and curses erases with "clear to end of
        // line" across whole rows, through the other tiles' video the painter believes is still there (a still picture,
        // such as a face, then kept the holes for good): repaint everything once then too.
        let videoNow = Set(videoTiles.map(\.0.id))
        if videoNow != lastVideo {
            curses.forceFullRepaint()
            painter?.invalidate()
        }
        lastVideo = videoNow
        drawStatus(room, y: rows - 1, width: cols, notice: notice)
        let inputCursor = pane.flatMap { drawChatPane(room.chat, state: chat, in: $0) }
        // The box is drawn over live video: the painter keeps out of its cells only.
        let box: CellRect?
        switch overlay {
        case .none: box = nil
        case .help: box = drawHelp(invite: invite, cols: cols, rows: rows)
        case .invite: box = drawBox(RoomView.inviteLines(invite), cols: cols, rows: rows)
        case .stats: box = drawStats(room, cols: cols, rows: rows)
        case .confirmLeave: box = drawBox(["Leave the call?", "", "y  leave      any other key  stay"], cols: cols, rows: rows)
        }
        painter?.withhold(box)
        // The terminal cursor shows only in the chat's input; the painter puts it back after writing video.
        curses.showCursor(at: box == nil ? inputCursor : nil)
        curses.refresh()
        if let painter {
            for (tile, rect) in videoTiles { painter.paint(tile, in: rect) }
            painter.flush()
        }
    }

    // MARK: - pieces

    static func meter(_ level: Double, width: Int) -> String {
        let filled = Int((min(max(level, 0), 1) * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "·", count: max(0, width - filled))
    }


    /// The label row; a further stream's has no speaking highlight and no meter (the audio is the main tile's).
    private func drawLabel(_ tile: Tile, at placed: TileLayout) {
        let p = tile.participant
        let width = placed.frame.width - 1
        let speaking = tile.isMain && p.showsSpeaking
        let pair: Curses.Pair = speaking ? .labelSpeaking : (p.isLocal ? .labelLocal : .label)
        let meterWidth = tile.isMain && width >= 30 ? 6 : 0
        curses.put(TileLabel.text(for: tile, columns: width - meterWidth), x: placed.frame.x, y: placed.labelRow,
                   maxWidth: width - meterWidth, pair: pair, bold: speaking)
        if meterWidth > 0 {
            curses.put(RoomView.meter(p.audioMuted ? 0 : p.audioLevel, width: meterWidth - 1),
                       x: placed.frame.x + width - meterWidth + 1, y: placed.labelRow, pair: .meter)
        }
    }

    /// What a tile shows without video: a frame with the name, the state and (the main tile) a live audio meter.
    private func drawPlaceholder(_ tile: Tile, in r: CellRect) {
        let p = tile.participant
        guard r.width >= 2, r.height >= 1 else { return }
        if r.height >= 3 {
            curses.put("┌" + String(repeating: "─", count: r.width - 2) + "┐", x: r.x, y: r.y, pair: .dim)
            for y in (r.y + 1)..<(r.maxY - 1) {
                curses.put("│", x: r.x, y: y, pair: .dim)
                curses.put("│", x: r.maxX - 1, y: y, pair: .dim)
            }
            curses.put("└" + String(repeating: "─", count: r.width - 2) + "┘", x: r.x, y: r.maxY - 1, pair: .dim)
        }
        let why: String
        if tile.isMain && !p.videoOn { why = "video off" }
        else if p.isLocal { why = "starting video" }
        else { why = p.connection == .connected ? "waiting for video" : p.connection.label }
        var lines = [DisplayWidth.fit(TileLabel.name(of: tile), columns: r.width - 2), why]
        if tile.isMain && p.audioMuted { lines.append("muted") }
        let meterWidth = tile.isMain ? min(12, max(0, r.width - 4)) : 0
        if meterWidth > 0 { lines.append(RoomView.meter(p.audioMuted ? 0 : p.audioLevel, width: meterWidth)) }
        let top = r.y + max(0, (r.height - lines.count) / 2)
        for (i, line) in lines.enumerated() where top + i < r.maxY - (r.height >= 3 ? 1 : 0) && top + i >= r.y + (r.height >= 3 ? 1 : 0) {
            let w = DisplayWidth.of(line)
            curses.put(line, x: r.x + max(1, (r.width - w) / 2), y: top + i, maxWidth: r.width - 2,
                       pair: i == lines.count - 1 && meterWidth > 0 ? .meter : .label, bold: i == 0)
        }
    }

    private func drawListRow(_ tile: Tile, y: Int, width: Int) {
        let p = tile.participant
        let pair: Curses.Pair = tile.isMain && p.showsSpeaking ? .labelSpeaking : (p.isLocal ? .labelLocal : .label)
        curses.put(TileLabel.text(for: tile, columns: max(0, width - 8)), x: 0, y: y, maxWidth: max(0, width - 8), pair: pair)
        if tile.isMain && width >= 20 {
            curses.put(RoomView.meter(p.audioMuted ? 0 : p.audioLevel, width: 6), x: width - 7, y: y, pair: .meter)
        }
    }

    private func drawStatus(_ room: Room, y: Int, width: Int, notice: String?) {
        guard y >= 0 else { return }
        curses.fill(x: 0, y: y, width: width, height: 1, pair: .status, reverse: !curses.hasColor)
        let text = notice.map { " \($0) │" + status.text(for: room) } ?? status.text(for: room)
        curses.put(text, x: 0, y: y, pair: .status, reverse: !curses.hasColor)
    }

    @discardableResult
    private func drawHelp(invite: Invite?, cols: Int, rows: Int) -> CellRect? {
        var lines = ["conftui keys", ""]
        for (key, what) in KeyBindings.help {
            lines.append(key.padding(toLength: 8) + what)
        }
        // The invite under the keys, so whoever looks for help also finds how to bring others in.
        if let invite { lines += [""] + invite.lines.filter { !$0.isEmpty } }
        return drawBox(lines, cols: cols, rows: rows)
    }

    /// The `i` overlay's lines; without an invite, why nobody can join.
    static func inviteLines(_ invite: Invite?) -> [String] {
        invite?.lines ?? ["invite others", "", "this is a simulated room: nobody else can join it.",
                          "for a live room others can join: conftui demo (without --simulate), or conftui serve"]
    }

    @discardableResult
    private func drawStats(_ room: Room, cols: Int, rows: Int) -> CellRect? {
        var lines = ["call statistics", "",
                     "name".padding(toLength: 12) + "state".padding(toLength: 13) + "fps".padding(toLength: 6)
                     + "kbps".padding(toLength: 7) + "rtt".padding(toLength: 7) + "loss".padding(toLength: 7) + "codec"]
        for p in room.participants {
            let s = p.stats
            let rtt = s.rttMs.map(RoomView.rtt) ?? "—"
            let codec = [s.videoCodec, s.audioCodec].compactMap { $0 }.joined(separator: "+")
            lines.append(DisplayWidth.fit(TileLabel.name(of: p), columns: 11).padding(toLength: 12)
                         + (p.isLocal ? "sending" : p.connection.label).padding(toLength: 13)
                         + String(Int(s.fps.rounded())).padding(toLength: 6)
                         + String(Int(s.kbps.rounded())).padding(toLength: 7)
                         + rtt.padding(toLength: 7)
                         + String(format1(s.lossPercent) + "%").padding(toLength: 7)
                         + (codec.isEmpty ? "—" : codec))
        }
        // Your row is what you send (encoder frames and bytes, once for all peers); the others' what arrives.
        if let target = room.local.stats.targetKbps { lines += ["", "you send at an encoder target of \(target) kbps"] }
        return drawBox(lines, cols: cols, rows: rows)
    }

    /// Loopback and LAN round trips are well under a millisecond: tenths below 10 ms, whole ms above.
    static func rtt(_ ms: Double) -> String {
        ms < 9.95 ? "\(Int((ms * 10).rounded()) / 10).\(Int((ms * 10).rounded()) % 10)ms" : "\(Int(ms.rounded()))ms"
    }

    private func format1(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    /// A centred box with a border, cut to the screen; returns the cells it covers.
    @discardableResult
    private func drawBox(_ lines: [String], cols: Int, rows: Int) -> CellRect? {
        let inner = min(cols - 4, (lines.map { DisplayWidth.of($0) }.max() ?? 0))
        guard inner > 0 else { return nil }
        let width = inner + 4
        let height = min(rows - 1, lines.count + 2)
        guard height >= 3 else { return nil }
        let x = max(0, (cols - width) / 2), y = max(0, (rows - 1 - height) / 2)
        let mono = !curses.hasColor
        curses.fill(x: x, y: y, width: width, height: height, pair: .overlay, reverse: mono)
        curses.put("╭" + String(repeating: "─", count: width - 2) + "╮", x: x, y: y, pair: .overlay, reverse: mono)
        curses.put("╰" + String(repeating: "─", count: width - 2) + "╯", x: x, y: y + height - 1, pair: .overlay, reverse: mono)
        for row in (y + 1)..<(y + height - 1) {
            curses.put("│", x: x, y: row, pair: .overlay, reverse: mono)
            curses.put("│", x: x + width - 1, y: row, pair: .overlay, reverse: mono)
        }
        for (i, line) in lines.prefix(height - 2).enumerated() {
            curses.put(line, x: x + 2, y: y + 1 + i, maxWidth: inner, pair: .overlay, bold: i == 0, reverse: mono)
        }
        return CellRect(x: x, y: y, width: width, height: height)
    }
}

extension String {
    /// Padded with spaces to `n` terminal columns.
    func padding(toLength n: Int) -> String { DisplayWidth.pad(self, to: n) }
}
