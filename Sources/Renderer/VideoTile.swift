/// What one `VideoTile.render` call did.
public struct TileFrameReport: Sendable, Equatable {
    /// The frame was skipped because the byte budget is in debt (the tile's frame rate drops).
    public var dropped: Bool
    /// Bytes this tile added to the screen's output.
    public var bytes: Int
    /// Cells written (video and label).
    public var cellsWritten: Int
    /// The factor the budget currently applies to the tolerances (1 when the link has room).
    public var toleranceScale: Double
}

/// One video picture drawn into a rectangle of the screen with half-block cells, with an
/// optional text label over its top-left corner.
///
/// The tile remembers, per pixel, the colour it meant the terminal to show and a temporal
/// average of the source. A pixel is repainted when the source moves away from the shown colour
/// by more than the tolerance (motion), or when the average has stayed more than the small
/// settle tolerance away for several frames (slow changes, and the true colour under sensor
/// noise). Noise alone therefore never repaints a static area, while the picture still converges
/// on what the camera sees.
public final class VideoTile {
    public private(set) var rect: CellRect
    public var label: String
    public var options: TileOptions
    public private(set) var toleranceScale = 1.0

    private let scaler = BoxScaler()
    private var scaled: [UInt8] = []
    private var intended: [RGB] = []
    private var average: [Int32] = []       // per pixel and channel, value*16
    private var age: [UInt8] = []
    private var stateValid = false
    private var generation = -1
    private var lastTime: Double?
    private var refreshDebt = 0.0
    private var nextRefreshRow = 0
    private var labelCellsShown = 0

    public init(rect: CellRect, label: String = "", options: TileOptions = TileOptions()) {
        self.rect = rect; self.label = label; self.options = options
    }

    /// Moves or resizes the tile: its cells are all repainted on the next frame.
    public func move(to rect: CellRect) {
        self.rect = rect
        stateValid = false
    }

    /// Forces a repaint of every cell of the tile on the next frame.
    public func repaint() { stateValid = false }

    /// Draws one frame taken at `now` seconds onto `screen` (which collects the bytes).
    @discardableResult
    public func render(_ input: VideoInput, now: Double, on screen: TerminalScreen) -> TileFrameReport {
        let w = min(rect.width, screen.columns - rect.column)
        let h = min(rect.height, screen.rows - rect.row)
        guard w > 0, h > 0, rect.column >= 0, rect.row >= 0 else {
            return TileFrameReport(dropped: false, bytes: 0, cellsWritten: 0, toleranceScale: toleranceScale)
        }
        let pixelCount = w * h * 2
        var forceAll = false
        if !stateValid || screen.generation != generation || intended.count != pixelCount {
            intended = Array(repeating: .black, count: pixelCount)
            average = Array(repeating: 0, count: pixelCount * 3)
            age = Array(repeating: 0, count: pixelCount)
            stateValid = true; generation = screen.generation; forceAll = true
            labelCellsShown = 0
        }

        // Budget: skip the frame while the link owes bytes; raise the tolerances while the
        // bucket runs low and relax them slowly once it refills.
        screen.budget.refill(now: now)
        if !forceAll && screen.budget.inDebt {
            toleranceScale = min(options.maxToleranceScale, toleranceScale * 1.25)
            lastTime = now
            return TileFrameReport(dropped: true, bytes: 0, cellsWritten: 0, toleranceScale: toleranceScale)
        }
        let fill = screen.budget.fill
        if fill < 0.25 { toleranceScale = min(options.maxToleranceScale, toleranceScale * 1.25) }
        else if fill > 0.75 { toleranceScale = max(1, toleranceScale * 0.97) }

        // Background refresh: whole rows, round-robin, so the tile is redrawn once a period.
        var refreshFrom = -1, refreshCount = 0
        if let period = options.refreshPeriod, period > 0, let last = lastTime, now > last, !forceAll {
            refreshDebt += (now - last) * Double(h) / period
            if refreshDebt >= 1 {
                refreshCount = min(h, Int(refreshDebt))
                refreshDebt -= Double(refreshCount)
                refreshFrom = nextRefreshRow % h
                nextRefreshRow = (refreshFrom + refreshCount) % h
            }
        }
        lastTime = now

        let box = Letterbox(sourceWidth: input.width, sourceHeight: input.height, areaWidth: w, areaHeight: h * 2)
        scaler.scale(input, width: box.width, height: box.height, into: &scaled)

        let before = screen.pendingByteCount
        var written = 0
        let tolerance = Int(Double(options.tolerance) * toleranceScale)
        let settle = Int(Double(options.settleTolerance) * toleranceScale)
        let settleFrames = UInt8(clamping: max(1, options.settleFrames))
        let reuse = options.colorMode == .truecolor ? Int(Double(options.reuseTolerance) * toleranceScale) : -1
        let quantizer = Quantizer(mode: options.colorMode, dither: options.dither)

        // Label text: row 0 of the tile from its first column.
        let labelText: [Unicode.Scalar] = label.isEmpty ? [] : Array((" " + label + " ").unicodeScalars.map(Self.narrow).prefix(w))
        let (labelFg, labelBg) = Self.labelColors(options.colorMode)
        for (k, s) in labelText.enumerated() {
            let before = screen.pendingByteCount
            screen.putText(column: rect.column + k, row: rect.row, s, foreground: labelFg, background: labelBg)
            if screen.pendingByteCount != before { written += 1 }
        }
        let labelWas = labelCellsShown
        labelCellsShown = labelText.count

        var intended = self.intended; self.intended = []
        var average = self.average; self.average = []
        var age = self.age; self.age = []
        defer { self.intended = intended; self.average = average; self.age = age }

        scaled.withUnsafeBufferPointer { src in
        intended.withUnsafeMutableBufferPointer { shown in
        average.withUnsafeMutableBufferPointer { avg in
        age.withUnsafeMutableBufferPointer { ages in
            // Returns 0 (keep), 1 (repaint with the source: motion) or 2 (repaint with the average).
            @inline(__always) func decide(_ i: Int, _ px: Int, _ py: Int) -> (Int, RGB, RGB) {
                var x = RGB.black
                let lx = px - box.x, ly = py - box.y
                if lx >= 0 && ly >= 0 && lx < box.width && ly < box.height {
                    let s = (ly * box.width + lx) * 3
                    x = RGB(src[s], src[s + 1], src[s + 2])
                }
                let a = 3 * i
                var e: RGB
                if forceAll {
                    avg[a] = Int32(x.r) << 4; avg[a + 1] = Int32(x.g) << 4; avg[a + 2] = Int32(x.b) << 4
                    e = x
                } else {
                    e = RGB(UInt8(truncatingIfNeeded: (avg[a] + 8) >> 4), UInt8(truncatingIfNeeded: (avg[a + 1] + 8) >> 4),
                            UInt8(truncatingIfNeeded: (avg[a + 2] + 8) >> 4))
                    if x.distance(to: e) > tolerance {
                        avg[a] = Int32(x.r) << 4; avg[a + 1] = Int32(x.g) << 4; avg[a + 2] = Int32(x.b) << 4
                        e = x
                    } else {
                        // Exponential average, weight 1/8: noise shrinks by about 4x; a step change still settles
                        // within about 16 frames, and a large one resets it at once (above).
                        avg[a] += (Int32(x.r) << 4 - avg[a]) >> 3
                        avg[a + 1] += (Int32(x.g) << 4 - avg[a + 1]) >> 3
                        avg[a + 2] += (Int32(x.b) << 4 - avg[a + 2]) >> 3
                        e = RGB(UInt8(truncatingIfNeeded: (avg[a] + 8) >> 4), UInt8(truncatingIfNeeded: (avg[a + 1] + 8) >> 4),
                                UInt8(truncatingIfNeeded: (avg[a + 2] + 8) >> 4))
                    }
                }
                if forceAll { return (1, x, e) }
                let p = shown[i]
                if x.distance(to: p) > tolerance { return (1, x, e) }
                if e.distance(to: p) > settle {
                    if ages[i] &+ 1 >= settleFrames { return (2, x, e) }
                    ages[i] &+= 1
                } else {
                    ages[i] = 0
                }
                return (0, x, e)
            }

            for r in 0..<h {
                let row = rect.row + r
                let inRefresh = refreshCount > 0 && ((r - refreshFrom + h) % h) < refreshCount
                for c in 0..<w {
                    if r == 0 && c < labelText.count {
                        continue
                    }
                    let column = rect.column + c
                    let ti = 2 * r * w + c, bi = ti + w
                    let (kt, xt, et) = decide(ti, c, 2 * r)
                    let (kb, xb, eb) = decide(bi, c, 2 * r + 1)
                    // Forced writes repair drift; after a reset the screen's own memory decides.
                    let forced = inRefresh || (r == 0 && c < labelWas)
                    if kt == 0 && kb == 0 && !forced { continue }
                    // What the terminal shows stays within the tolerance of the source: the
                    // average is used only while it is, and so is any colour substituted below.
                    var top = kt == 1 || xt.distance(to: et) > tolerance ? xt : et
                    var bottom = kb == 1 || xb.distance(to: eb) > tolerance ? xb : eb
                    if reuse >= 0 && !forced && !forceAll && (kt == 1 || kb == 1) {
                        // Fewer SGR bytes where the picture moves: a cell whose halves nearly match
                        // becomes one colour, and a colour near the one already set is drawn with it.
                        // Not on full or settling repaints: those set what static areas keep showing.
                        @inline(__always) func fits(_ c: RGB, _ v: RGB, _ x: RGB) -> Bool {
                            c.distance(to: v) <= reuse && c.distance(to: x) <= tolerance
                        }
                        if top.distance(to: bottom) <= reuse {
                            let m = RGB(UInt8((Int(top.r) + Int(bottom.r) + 1) >> 1), UInt8((Int(top.g) + Int(bottom.g) + 1) >> 1),
                                        UInt8((Int(top.b) + Int(bottom.b) + 1) >> 1))
                            if m.distance(to: xt) <= tolerance && m.distance(to: xb) <= tolerance { top = m; bottom = m }
                        }
                        let fg = screen.currentForeground?.rgbValue, bg = screen.currentBackground?.rgbValue
                        if let bg, fits(bg, top, xt) { top = bg } else if let fg, fits(fg, top, xt) { top = fg }
                        if let bg, fits(bg, bottom, xb) { bottom = bg } else if let fg, fits(fg, bottom, xb) { bottom = fg }
                    }
                    shown[ti] = top; shown[bi] = bottom
                    ages[ti] = 0; ages[bi] = 0
                    let y0 = 2 * row
                    let before = screen.pendingByteCount
                    screen.put(column: column, row: row, top: quantizer.color(top, x: column, y: y0),
                               bottom: quantizer.color(bottom, x: column, y: y0 + 1), force: forced)
                    if screen.pendingByteCount != before { written += 1 }
                }
            }
        }}}}

        let bytes = screen.pendingByteCount - before
        screen.budget.spend(bytes)
        return TileFrameReport(dropped: false, bytes: bytes, cellsWritten: written, toleranceScale: toleranceScale)
    }

    /// One cell per scalar: controls, combining marks and scripts that may be drawn two cells
    /// wide (from U+1100 on: Hangul, CJK, emoji) would desynchronize the screen model, so they
    /// show as '?'.
    static func narrow(_ s: Unicode.Scalar) -> Unicode.Scalar {
        let v = s.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) || (v >= 0x300 && v < 0x370) || v >= 0x1100 { return "?" }
        return s
    }

    /// Label colours: light text on a dark grey plate that reads over any picture.
    static func labelColors(_ mode: ColorMode) -> (TermColor, TermColor) {
        switch mode {
        case .truecolor: return (.rgb(RGB(240, 240, 240)), .rgb(RGB(48, 48, 48)))
        case .palette256: return (.indexed(255), .indexed(236))
        case .palette16: return (.indexed(15), .indexed(0))
        case .monochrome: return (.defaultForeground, .defaultBackground)
        }
    }
}
