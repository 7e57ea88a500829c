import EngineTestSupport
import Testing
@testable import Renderer

/// Replays the renderer's bytes through `TerminalModel` and checks that the terminal shows what
/// the renderer believes it shows, and what the source asks for, within the tolerance.
@Suite struct ReplayTests {
    /// A random picture that changes a little (noise), a lot (moving blocks) or not at all.
    struct Scene {
        var rng: SplitMixRandom
        var pixels: [RGB]
        let width: Int, height: Int

        init(seed: UInt64, width: Int, height: Int) {
            rng = SplitMixRandom(seed: seed)
            self.width = width; self.height = height
            pixels = []
            for _ in 0..<(width * height) { pixels.append(RGB(rng.byte(), rng.byte(), rng.byte())) }
        }

        mutating func step() {
            switch rng.int(0...3) {
            case 0: break
            case 1:
                for i in pixels.indices where rng.int(0...3) == 0 {
                    func n(_ v: UInt8) -> UInt8 { UInt8(clamping: Int(v) + rng.int(-3...3)) }
                    pixels[i] = RGB(n(pixels[i].r), n(pixels[i].g), n(pixels[i].b))
                }
            default:
                let c = RGB(rng.byte(), rng.byte(), rng.byte())
                let x0 = rng.int(0...(width - 1)), y0 = rng.int(0...(height - 1))
                for y in y0..<min(height, y0 + rng.int(1...8)) { for x in x0..<min(width, x0 + rng.int(1...8)) { pixels[y * width + x] = c } }
            }
        }

        var image: RGBImage {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(pixels.count * 3)
            for p in pixels { bytes += [p.r, p.g, p.b] }
            return try! RGBImage(width: width, height: height, pixels: bytes)
        }
    }

    /// The model must hold exactly the screen's cells (pixel colours for blocks, glyph and
    /// colours for text).
    func expectModelMatchesScreen(_ model: TerminalModel, _ screen: TerminalScreen, _ context: String) {
        var mismatches = 0
        for r in 0..<screen.rows {
            for c in 0..<screen.columns where screen.known[r * screen.columns + c] {
                let want = screen.cell(column: c, row: r), got = model.cell(column: c, row: r)
                if let wp = want.pixels {
                    guard let gp = got.pixels, gp.top == wp.top, gp.bottom == wp.bottom else { mismatches += 1; continue }
                } else if want != got { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(mismatches) cells differ: \(context)")
    }

    @Test(arguments: [ColorMode.truecolor, .palette256, .palette16, .monochrome], [UInt64(1), 2, 3])
    func randomSequencesReplayExactly(mode: ColorMode, seed: UInt64) {
        var rng = SplitMixRandom(seed: seed &* 7919)
        var columns = 20, rows = 8
        let screen = TerminalScreen(columns: columns, rows: rows)
        var model = TerminalModel(columns: columns, rows: rows)
        var scene = Scene(seed: seed, width: 24, height: 14)
        let tiles = [VideoTile(rect: CellRect(column: 0, row: 0, width: 12, height: 8), label: "al",
                               options: TileOptions(colorMode: mode, dither: seed % 2 == 0, refreshPeriod: 1)),
                     VideoTile(rect: CellRect(column: 12, row: 1, width: 9, height: 6), label: "bob",
                               options: TileOptions(colorMode: mode, refreshPeriod: nil))]
        for frame in 0..<80 {
            let now = Double(frame) / 30
            switch rng.int(0...19) {
            case 0:
                columns = rng.int(6...24); rows = rng.int(3...10)
                screen.resize(columns: columns, rows: rows); model.resize(columns: columns, rows: rows)
            case 1:
                screen.invalidate()
            case 5:
                // A curses front draws between frames (moves the cursor, leaves red set) without
                // touching the video cells: the screen is not told, and must not rely on either.
                model.feed(Array("\u{1B}[\(rng.int(1...rows));\(rng.int(1...columns))H\u{1B}[31;42m".utf8))
            case 3:
                tiles[rng.int(0...1)].label = ["", "x", "carol", "d"][rng.int(0...3)]
            case 4:
                tiles[1].move(to: CellRect(column: rng.int(0...14), row: rng.int(0...4), width: rng.int(1...9), height: rng.int(1...6)))
            case 2:
                // Something else scribbles on the terminal; the screen is told (Ctrl-L).
                model.feed(Array("\u{1B}[2;3Hxyz\u{1B}[41m  ".utf8)); screen.invalidate()
            default: break
            }
            scene.step()
            for t in tiles { t.render(.rgb(scene.image), now: now, on: screen) }
            model.feed(screen.finishFrame())
            #expect(model.unknown == 0)
            expectModelMatchesScreen(model, screen, "mode \(mode) seed \(seed) frame \(frame)")
        }
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func truecolorStaysWithinToleranceOfTheSource(seed: UInt64) {
        // One tile filling the screen; after every frame, resize and repaint, each pixel the
        // terminal shows is within the tolerance of the source (the budget is large, so it never
        // scales the tolerance). The source is drawn at the tile's pixel size, so no scaling blurs it.
        var rng = SplitMixRandom(seed: seed)
        var columns = 16, rows = 6
        let screen = TerminalScreen(columns: columns, rows: rows, budget: ByteBudget(bytesPerSecond: 100_000_000))
        var model = TerminalModel(columns: columns, rows: rows)
        let options = TileOptions(colorMode: .truecolor, refreshPeriod: 2)
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: columns, height: rows), options: options)
        var scene = Scene(seed: seed, width: columns, height: rows * 2)
        var worst = 0
        for frame in 0..<150 {
            switch rng.int(0...24) {
            case 0:
                columns = rng.int(4...20); rows = rng.int(2...8)
                screen.resize(columns: columns, rows: rows); model.resize(columns: columns, rows: rows)
                tile.move(to: CellRect(column: 0, row: 0, width: columns, height: rows))
                scene = Scene(seed: rng.next(), width: columns, height: rows * 2)
            case 1:
                screen.invalidate()
            default: break
            }
            scene.step()
            tile.render(.rgb(scene.image), now: Double(frame) / 30, on: screen)
            model.feed(screen.finishFrame())
            for y in 0..<(rows * 2) { for x in 0..<columns {
                worst = max(worst, model.pixel(column: x, pixelRow: y).distance(to: scene.pixels[y * columns + x]))
            }}
        }
        #expect(worst <= options.tolerance)
    }

    @Test func staticFrameCostsNothingAfterTheFirst() {
        let screen = TerminalScreen(columns: 20, rows: 6)
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: 20, height: 6), label: "me",
                             options: TileOptions(colorMode: .truecolor, refreshPeriod: nil))
        let scene = Scene(seed: 5, width: 40, height: 30)
        tile.render(.rgb(scene.image), now: 0, on: screen)
        #expect(screen.finishFrame().count > 500)
        for frame in 1..<60 {
            tile.render(.rgb(scene.image), now: Double(frame) / 30, on: screen)
            #expect(screen.finishFrame().isEmpty, "frame \(frame)")
        }
    }

    @Test func backgroundRefreshRepairsDriftOneRowAtATime() {
        let rows = 6
        let screen = TerminalScreen(columns: 10, rows: rows)
        var model = TerminalModel(columns: 10, rows: rows)
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: 10, height: rows),
                             options: TileOptions(colorMode: .truecolor, refreshPeriod: 1))
        let scene = Scene(seed: 8, width: 10, height: rows * 2)
        tile.render(.rgb(scene.image), now: 0, on: screen)
        model.feed(screen.finishFrame())
        let intended = model.cells
        // Drift the screen is not told about: the whole terminal is cleared.
        model.feed(Array("\u{1B}[0m\u{1B}[2J".utf8))
        var nonEmpty = 0
        for frame in 1...30 {
            tile.render(.rgb(scene.image), now: Double(frame) / 30, on: screen)
            let bytes = screen.finishFrame()
            if !bytes.isEmpty { nonEmpty += 1 }
            model.feed(bytes)
        }
        // Six rows over one second at 30 fps: a row every five frames, and everything repaired.
        #expect(nonEmpty == rows)
        var repaired = 0
        for i in intended.indices {
            if let want = intended[i].pixels, let got = model.cells[i].pixels, want.top == got.top, want.bottom == got.bottom { repaired += 1 }
        }
        #expect(repaired == intended.count)
    }

    @Test func noiseBelowTheToleranceIsNotRepainted() {
        let screen = TerminalScreen(columns: 32, rows: 12)
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: 32, height: 12),
                             options: TileOptions(colorMode: .truecolor, refreshPeriod: nil))
        var rng = SplitMixRandom(seed: 77)
        let base = Scene(seed: 12, width: 32, height: 24)
        tile.render(.rgb(base.image), now: 0, on: screen)
        _ = screen.finishFrame()
        var total = 0
        for frame in 1..<90 {
            var noisy = base
            for i in noisy.pixels.indices {
                func n(_ v: UInt8) -> UInt8 { UInt8(clamping: Int(v) + rng.int(-4...4)) }
                noisy.pixels[i] = RGB(n(noisy.pixels[i].r), n(noisy.pixels[i].g), n(noisy.pixels[i].b))
            }
            tile.render(.rgb(noisy.image), now: Double(frame) / 30, on: screen)
            total += screen.finishFrame().count
        }
        // A full repaint is tens of kilobytes; noise of ±4 around a static picture costs (almost) nothing:
        // only pixels whose average settles more than 2 away from what was drawn are redrawn.
        #expect(total < 32 * 12 * 40 / 4, "noise cost \(total) bytes over 89 frames")
    }

    @Test func overBudgetDropsFramesAndRaisesTheTolerance() {
        // 2 kB/s for a tile that would need far more: frames are dropped (never queued), the
        // bytes written stay near the budget, and the tolerance scale climbs.
        let screen = TerminalScreen(columns: 32, rows: 12, budget: ByteBudget(bytesPerSecond: 2000))
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: 32, height: 12),
                             options: TileOptions(colorMode: .truecolor, refreshPeriod: nil))
        var scene = Scene(seed: 4, width: 32, height: 24)
        var dropped = 0, total = 0
        for frame in 0..<300 {
            for _ in 0..<3 { scene.step() }
            let report = tile.render(.rgb(scene.image), now: Double(frame) / 30, on: screen)
            let bytes = screen.finishFrame()
            if report.dropped { dropped += 1; #expect(bytes.isEmpty) }
            total += bytes.count
        }
        #expect(dropped > 100)
        #expect(tile.toleranceScale > 1)
        // Ten seconds at 2 kB/s plus the half-second bucket and one frame of overshoot.
        #expect(total < 10 * 2000 + 1000 + 32 * 12 * 45)
    }
}
