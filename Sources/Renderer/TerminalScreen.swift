/// The renderer's memory of what the terminal shows, and the writer that changes it.
///
/// Every byte the renderer emits goes through here, so the screen always knows each cell's
/// glyph and colours, the cursor position and the current SGR colours. Changes are written as
/// cheaply as it can find: the cursor move with the fewest bytes (CUF, CUB, CR+LF, CUP), an SGR
/// only for a slot whose colour changes, and the half-block glyph that needs the fewest colour
/// changes. A frame's output is wrapped in synchronized-output marks (`CSI ? 2026 h/l`, the
/// "synchronized update" mode of iTerm2/kitty/foot/tmux ≥ 3.4; terminals that do not know it
/// ignore it as an unknown DEC private mode), and nothing at all is written for a frame that
/// changes nothing.
public final class TerminalScreen {
    public private(set) var columns: Int
    public private(set) var rows: Int
    /// What each cell shows, row by row; `known[i]` is false until the cell has been drawn
    /// since the last full repaint.
    public private(set) var cells: [Cell]
    public private(set) var known: [Bool]
    /// Changes when the screen is resized or fully repainted: tiles drop their memory then.
    public private(set) var generation = 0
    /// The byte budget shared by every tile drawn on this screen.
    public var budget: ByteBudget

    private var cursorRow = -1, cursorColumn = -1           // -1: unknown
    private var foreground: TermColor?                       // nil: unknown
    private var background: TermColor?
    private var output: [UInt8] = []
    private var frameOpen = false
    private var clearPending = true

    /// Whether only this screen writes to the terminal. If not (the default: a curses front may
    /// draw labels or menus between frames, and DECSC/DECRC around our frames restores its own
    /// attributes), each frame starts with the cursor and SGR colours unknown, which costs one
    /// CUP and one SGR a frame. Cell contents are still trusted; `invalidate()` when they may not be.
    public var exclusive: Bool

    /// Cells another writer owns for now (a curses overlay box drawn over the video): nothing is
    /// written into them, and they become unknown, because what the terminal shows there is not ours.
    /// Whoever lifts the mask must make tiles repaint those cells (`invalidate()` does).
    public var withheld: CellRect?

    @inline(__always) private func isWithheld(_ c: Int, _ r: Int) -> Bool {
        guard let w = withheld else { return false }
        return c >= w.column && c < w.column + w.width && r >= w.row && r < w.row + w.height
    }

    public init(columns: Int, rows: Int, budget: ByteBudget = ByteBudget(), exclusive: Bool = false) {
        precondition(columns > 0 && rows > 0)
        self.columns = columns; self.rows = rows; self.budget = budget; self.exclusive = exclusive
        cells = Array(repeating: .blank, count: columns * rows)
        known = Array(repeating: false, count: columns * rows)
    }

    /// A new terminal size: everything is cleared and redrawn on the next frame.
    public func resize(columns: Int, rows: Int) {
        precondition(columns > 0 && rows > 0)
        self.columns = columns; self.rows = rows
        cells = Array(repeating: .blank, count: columns * rows)
        invalidate()
    }

    /// Forgets what the terminal shows (Ctrl-L, or anything else may have written to it): the
    /// next frame clears the screen and every tile repaints all its cells.
    public func invalidate() {
        known = Array(repeating: false, count: columns * rows)
        cursorRow = -1; cursorColumn = -1
        foreground = nil; background = nil
        clearPending = true
        generation &+= 1
    }

    /// The cell at a position.
    public func cell(column: Int, row: Int) -> Cell { cells[row * columns + column] }

    /// The current byte count of the frame being written (tiles measure their share with it).
    public var pendingByteCount: Int { output.count }

    /// The bytes written since the last call, closing the frame: SGR reset (so nothing else
    /// drawn later inherits our colours) and the end of the synchronized update.
    public func finishFrame() -> [UInt8] {
        if clearPending { openFrame() }
        guard frameOpen else { return [] }
        if foreground != .defaultForeground || background != .defaultBackground {
            output.append(contentsOf: [0x1B, 0x5B, 0x30, 0x6D])            // ESC [ 0 m
            foreground = .defaultForeground; background = .defaultBackground
        }
        output.append(contentsOf: Self.syncEnd)
        frameOpen = false
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    static let syncBegin: [UInt8] = Array("\u{1B}[?2026h".utf8)
    static let syncEnd: [UInt8] = Array("\u{1B}[?2026l".utf8)

    private func openFrame() {
        if frameOpen { return }
        frameOpen = true
        if !exclusive {
            cursorRow = -1; cursorColumn = -1
            foreground = nil; background = nil
        }
        output.append(contentsOf: Self.syncBegin)
        if clearPending {
            // Reset first: erasing fills with the current background (xterm's BCE).
            output.append(contentsOf: Array("\u{1B}[0m\u{1B}[2J".utf8))
            foreground = .defaultForeground; background = .defaultBackground
            for i in 0..<cells.count { cells[i] = .blank; known[i] = true }
            clearPending = false
        }
    }

    // MARK: cells

    /// Shows a half-block cell whose upper pixel is `top` and lower pixel `bottom`. Writes
    /// nothing if the cell already shows exactly that, unless `force` (drift repair).
    public func put(column c: Int, row r: Int, top: TermColor, bottom: TermColor, force: Bool = false) {
        if clearPending { openFrame() }     // the clear makes every cell known (blank)
        let i = r * columns + c
        if isWithheld(c, r) { known[i] = false; return }
        if !force && known[i], let p = cells[i].pixels, p.top == top, p.bottom == bottom { return }
        openFrame()                         // first, so the choice below sees this frame's SGR state
        // Candidates: (glyph, foreground needed, background needed); nil means "any".
        var bestGlyph = Cell.upperHalf
        var bestFg: TermColor? = top, bestBg: TermColor? = bottom
        var bestCost = Int.max
        func consider(_ g: Unicode.Scalar, _ f: TermColor?, _ b: TermColor?, _ glyphBytes: Int) {
            if let f, !f.fits(background: false) { return }
            if let b, !b.fits(background: true) { return }
            let cost = sgrCost(f, b) + glyphBytes
            if cost < bestCost { bestCost = cost; bestGlyph = g; bestFg = f; bestBg = b }
        }
        if top == bottom {
            consider(Cell.space, nil, top, 1)
            consider(Cell.fullBlock, top, nil, 3)
        } else {
            consider(Cell.upperHalf, top, bottom, 3)
            consider(Cell.lowerHalf, bottom, top, 3)
        }
        precondition(bestCost != Int.max, "no glyph can show \(top) over \(bottom)")
        moveCursor(row: r, column: c)
        setColors(bestFg, bestBg)
        appendScalar(bestGlyph)
        cells[i] = Cell(glyph: bestGlyph, foreground: foreground ?? .defaultForeground, background: background ?? .defaultBackground)
        known[i] = true
        advanceCursor(after: c)
    }

    /// Shows a text character (a label) with the given colours.
    public func putText(column c: Int, row r: Int, _ glyph: Unicode.Scalar, foreground fg: TermColor,
                        background bg: TermColor, force: Bool = false) {
        if clearPending { openFrame() }
        let i = r * columns + c
        if isWithheld(c, r) { known[i] = false; return }
        let wanted = Cell(glyph: glyph, foreground: fg, background: bg)
        if !force && known[i] && cells[i] == wanted { return }
        openFrame()
        moveCursor(row: r, column: c)
        setColors(fg, bg)
        appendScalar(glyph)
        cells[i] = wanted
        known[i] = true
        advanceCursor(after: c)
    }

    @inline(__always) private func advanceCursor(after c: Int) {
        // Writing the last column leaves the cursor in the "pending wrap" state, where what a
        // relative move does differs between terminals: forget the position instead.
        if c + 1 >= columns { cursorRow = -1; cursorColumn = -1 } else { cursorColumn = c + 1 }
    }

    private func appendScalar(_ s: Unicode.Scalar) {
        let v = s.value
        if v < 0x80 { output.append(UInt8(v)) }
        else if v < 0x800 { output.append(UInt8(0xC0 | v >> 6)); output.append(UInt8(0x80 | v & 0x3F)) }
        else if v < 0x10000 {
            output.append(UInt8(0xE0 | v >> 12)); output.append(UInt8(0x80 | v >> 6 & 0x3F)); output.append(UInt8(0x80 | v & 0x3F))
        } else {
            output.append(UInt8(0xF0 | v >> 18)); output.append(UInt8(0x80 | v >> 12 & 0x3F))
            output.append(UInt8(0x80 | v >> 6 & 0x3F)); output.append(UInt8(0x80 | v & 0x3F))
        }
    }

    // MARK: SGR

    @inline(__always) private func sgrCost(_ f: TermColor?, _ b: TermColor?) -> Int {
        let changeF = f != nil && f != foreground
        let changeB = b != nil && b != background
        if !changeF && !changeB { return 0 }
        var n = 3
        if changeF { n += f!.parameterLength(background: false) }
        if changeB { n += b!.parameterLength(background: true) }
        if changeF && changeB { n += 1 }
        return n
    }

    private func setColors(_ f: TermColor?, _ b: TermColor?) {
        let changeF = f != nil && f != foreground
        let changeB = b != nil && b != background
        if !changeF && !changeB { return }
        output.append(0x1B); output.append(0x5B)
        if changeF { f!.appendParameters(background: false, to: &output); foreground = f }
        if changeF && changeB { output.append(0x3B) }
        if changeB { b!.appendParameters(background: true, to: &output); background = b }
        output.append(0x6D)
    }

    // MARK: cursor

    private func csi(_ n: Int, _ final: UInt8) {
        output.append(0x1B); output.append(0x5B)
        if n != 1 { appendDecimal(n, to: &output) }
        output.append(final)
    }

    @inline(__always) private func csiLength(_ n: Int) -> Int { n == 1 ? 3 : 3 + decimalLength(n) }

    private func moveCursor(row r: Int, column c: Int) {
        if cursorRow == r && cursorColumn == c { return }
        // CUP: ESC [ row ; col H, with the defaults left out where they are 1.
        var best = 3 + (r == 0 && c == 0 ? 0 : decimalLength(r + 1)) + (c == 0 ? 0 : 1 + decimalLength(c + 1))
        var plan = 0     // 0 CUP, 1 CUF, 2 CUB, 3 CR (+LF*n) (+CUF)
        if cursorRow >= 0 {
            if r == cursorRow {
                if c > cursorColumn, csiLength(c - cursorColumn) < best { best = csiLength(c - cursorColumn); plan = 1 }
                if c < cursorColumn {
                    if csiLength(cursorColumn - c) < best { best = csiLength(cursorColumn - c); plan = 2 }
                    let viaCR = 1 + (c > 0 ? csiLength(c) : 0)
                    if viaCR < best { best = viaCR; plan = 3 }
                }
            } else if r > cursorRow {
                // CR then LF: LF never scrolls here because the target row is on the screen.
                let viaNewline = 1 + (r - cursorRow) + (c > 0 ? csiLength(c) : 0)
                if viaNewline < best { best = viaNewline; plan = 3 }
            }
        }
        switch plan {
        case 1: csi(c - cursorColumn, 0x43)
        case 2: csi(cursorColumn - c, 0x44)
        case 3:
            output.append(0x0D)
            if r > cursorRow { for _ in 0..<(r - cursorRow) { output.append(0x0A) } }
            if c > 0 { csi(c, 0x43) }
        default:
            output.append(0x1B); output.append(0x5B)
            if r != 0 || c != 0 { appendDecimal(r + 1, to: &output) }
            if c != 0 { output.append(0x3B); appendDecimal(c + 1, to: &output) }
            output.append(0x48)
        }
        cursorRow = r; cursorColumn = c
    }

    /// Current SGR colours, for tiles that reuse a colour already set when it is close enough.
    public var currentForeground: TermColor? { foreground }
    public var currentBackground: TermColor? { background }
}
