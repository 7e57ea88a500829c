/// A small model of a VT/xterm terminal: replays bytes into a grid of cells.
///
/// It is the referee for the renderer: tests and `conftui-bench` feed it the renderer's output and
/// compare what it shows with what was meant (and with the source picture, for PSNR). It knows
/// exactly what the renderer may write, and treats the rest as a terminal would: CUP (`H`, `f`),
/// CUF/CUB/CUD/CUU, CHA, ED 2, SGR (0, 39/49, 30-37/40-47/90-97/100-107, 38;5/48;5, 38;2/48;2),
/// DEC private modes (ignored), CR, LF (scrolling at the bottom), BS, UTF-8 text, and xterm's
/// pending-wrap rule for the last column. Bytes it does not understand are counted in `unknown`.
public struct TerminalModel: Sendable {
    public private(set) var columns: Int
    public private(set) var rows: Int
    public private(set) var cells: [Cell]
    public private(set) var cursorRow = 0
    public private(set) var cursorColumn = 0
    public private(set) var unknown = 0
    private var pendingWrap = false
    private var foreground = TermColor.defaultForeground
    private var background = TermColor.defaultBackground
    // Parser state carried across `feed` calls.
    private var state = 0            // 0 ground, 1 ESC, 2 CSI
    private var parameters: [UInt8] = []
    private var utf8: [UInt8] = []
    private var utf8Needed = 0

    public init(columns: Int, rows: Int) {
        self.columns = columns; self.rows = rows
        cells = Array(repeating: .blank, count: columns * rows)
    }

    public func cell(column: Int, row: Int) -> Cell { cells[row * columns + column] }

    /// The RGB picture the block cells show (2 pixels a cell), default colours as dark theme.
    public func pixel(column: Int, pixelRow: Int) -> RGB {
        let c = cells[(pixelRow / 2) * columns + column]
        guard let p = c.pixels else { return Palette.rgb(of: c.background) }
        return Palette.rgb(of: pixelRow % 2 == 0 ? p.top : p.bottom)
    }

    /// A terminal resize: the grid is cleared (the renderer repaints everything after one).
    public mutating func resize(columns: Int, rows: Int) {
        self.columns = columns; self.rows = rows
        cells = Array(repeating: .blank, count: columns * rows)
        cursorRow = min(cursorRow, rows - 1); cursorColumn = min(cursorColumn, columns - 1); pendingWrap = false
    }

    public mutating func feed(_ bytes: [UInt8]) {
        for b in bytes { feed(byte: b) }
    }

    private mutating func feed(byte b: UInt8) {
        switch state {
        case 1:
            if b == 0x5B { state = 2; parameters.removeAll(keepingCapacity: true) }
            else { state = 0; if b != 0x37 && b != 0x38 { unknown += 1 } }     // ESC 7 / ESC 8 tolerated
        case 2:
            if b >= 0x40 && b <= 0x7E { state = 0; csi(final: b) } else { parameters.append(b) }
        default:
            if utf8Needed > 0 {
                utf8.append(b); utf8Needed -= 1
                if utf8Needed == 0 {
                    var v: UInt32 = 0
                    let lead = utf8[0]
                    v = UInt32(lead) & (lead >= 0xF0 ? 0x07 : lead >= 0xE0 ? 0x0F : 0x1F)
                    for c in utf8.dropFirst() { v = v << 6 | UInt32(c & 0x3F) }
                    if let s = Unicode.Scalar(v) { printScalar(s) } else { unknown += 1 }
                }
                return
            }
            switch b {
            case 0x1B: state = 1
            case 0x0D: cursorColumn = 0; pendingWrap = false
            case 0x0A: lineFeed(); pendingWrap = false
            case 0x08: if cursorColumn > 0 { cursorColumn -= 1 }; pendingWrap = false
            case 0x20..<0x7F: printScalar(Unicode.Scalar(b))
            case 0xC0..<0xE0: utf8 = [b]; utf8Needed = 1
            case 0xE0..<0xF0: utf8 = [b]; utf8Needed = 2
            case 0xF0..<0xF8: utf8 = [b]; utf8Needed = 3
            default: unknown += 1
            }
        }
    }

    private mutating func lineFeed() {
        if cursorRow + 1 < rows { cursorRow += 1; return }
        cells.removeFirst(columns)
        cells.append(contentsOf: Array(repeating: Cell(glyph: " ", foreground: foreground, background: background), count: columns))
    }

    private mutating func printScalar(_ s: Unicode.Scalar) {
        if pendingWrap {
            pendingWrap = false
            cursorColumn = 0
            lineFeed()
        }
        cells[cursorRow * columns + cursorColumn] = Cell(glyph: s, foreground: foreground, background: background)
        if cursorColumn + 1 < columns { cursorColumn += 1 } else { pendingWrap = true }
    }

    private mutating func csi(final: UInt8) {
        if parameters.first == 0x3F { return }          // DEC private modes: ?2026, ?25 …
        var numbers: [Int] = []
        var current: Int?
        for p in parameters {
            if p == 0x3B { numbers.append(current ?? 0); current = nil }
            else if p >= 0x30 && p <= 0x39 { current = (current ?? 0) * 10 + Int(p - 0x30) }
            else { unknown += 1; return }
        }
        numbers.append(current ?? 0)
        func n(_ i: Int, _ d: Int = 1) -> Int { i < numbers.count && numbers[i] != 0 ? numbers[i] : d }
        switch final {
        case 0x48, 0x66:    // CUP, HVP
            cursorRow = min(rows, n(0)) - 1; cursorColumn = min(columns, n(1)) - 1; pendingWrap = false
        case 0x43: cursorColumn = min(columns - 1, cursorColumn + n(0)); pendingWrap = false
        case 0x44: cursorColumn = max(0, cursorColumn - n(0)); pendingWrap = false
        case 0x42: cursorRow = min(rows - 1, cursorRow + n(0)); pendingWrap = false
        case 0x41: cursorRow = max(0, cursorRow - n(0)); pendingWrap = false
        case 0x47: cursorColumn = min(columns, n(0)) - 1; pendingWrap = false
        case 0x4A:
            if numbers.first == 2 {
                for i in 0..<cells.count { cells[i] = Cell(glyph: " ", foreground: foreground, background: background) }
            } else { unknown += 1 }
        case 0x6D: sgr(numbers)
        default: unknown += 1
        }
    }

    private mutating func sgr(_ p: [Int]) {
        var i = 0
        while i < p.count {
            let v = p[i]
            switch v {
            case 0: foreground = .defaultForeground; background = .defaultBackground
            case 39: foreground = .defaultForeground
            case 49: background = .defaultBackground
            case 30...37: foreground = .indexed(UInt8(v - 30))
            case 40...47: background = .indexed(UInt8(v - 40))
            case 90...97: foreground = .indexed(UInt8(v - 90 + 8))
            case 100...107: background = .indexed(UInt8(v - 100 + 8))
            case 38, 48:
                var color: TermColor?
                if i + 2 < p.count && p[i + 1] == 5 { color = .indexed(UInt8(clamping: p[i + 2])); i += 2 }
                else if i + 4 < p.count && p[i + 1] == 2 {
                    color = .rgb(RGB(UInt8(clamping: p[i + 2]), UInt8(clamping: p[i + 3]), UInt8(clamping: p[i + 4]))); i += 4
                } else { unknown += 1; return }
                if v == 38 { foreground = color! } else { background = color! }
            default: unknown += 1
            }
            i += 1
        }
    }
}
