import Testing
@testable import Renderer

/// Tiny pictures to exact byte strings, one per colour mode. The first frame always starts with
/// the synchronized-update mark, a reset and a clear (the screen starts unknown).
@Suite struct GoldenOutputTests {
    static let open = "\u{1B}[?2026h\u{1B}[0m\u{1B}[2J"
    static let close = "\u{1B}[?2026l"

    func firstFrame(_ rows: [[RGB]], mode: ColorMode, columns: Int, cellRows: Int, label: String = "",
                    dither: Bool = false) -> String {
        let screen = TerminalScreen(columns: columns, rows: cellRows)
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: columns, height: cellRows), label: label,
                             options: TileOptions(colorMode: mode, dither: dither, refreshPeriod: nil))
        tile.render(.rgb(TestSupport.picture(rows)), now: 0, on: screen)
        return String(decoding: screen.finishFrame(), as: UTF8.self)
    }

    let red = RGB(255, 0, 0), blue = RGB(0, 0, 255), white = RGB.white, black = RGB.black

    @Test func truecolorUpperHalfCarriesBothColours() {
        #expect(firstFrame([[red], [blue]], mode: .truecolor, columns: 1, cellRows: 1)
                == Self.open + "\u{1B}[H\u{1B}[38;2;255;0;0;48;2;0;0;255m\u{2580}\u{1B}[0m" + Self.close)
    }

    @Test func palette256UsesCubeIndices() {
        // Red is cube index 196, blue 21; the 16 theme colours are never used.
        #expect(firstFrame([[red], [blue]], mode: .palette256, columns: 1, cellRows: 1)
                == Self.open + "\u{1B}[H\u{1B}[38;5;196;48;5;21m\u{2580}\u{1B}[0m" + Self.close)
    }

    @Test func palette256DitherAlternatesNeighbouringLevels() {
        // Grey 13 lies between ramp steps 8 (232) and 18 (233), half way; the Bayer thresholds at
        // (0,0), (1,0), (0,1), (1,1) are 1, 17, 25 and 9 32nds: 233, 232, 232, 233. The second
        // cell (232 over 233) is a lower half block with the colours already set.
        #expect(firstFrame([[RGB(13, 13, 13), RGB(13, 13, 13)], [RGB(13, 13, 13), RGB(13, 13, 13)]],
                           mode: .palette256, columns: 2, cellRows: 1, dither: true)
                == Self.open + "\u{1B}[H\u{1B}[38;5;233;48;5;232m\u{2580}\u{2584}\u{1B}[0m" + Self.close)
    }

    @Test func palette16UsesShortForms() {
        // Bright red (index 9) as foreground is 91; blue's nearest is index 4, background 44.
        #expect(firstFrame([[red], [blue]], mode: .palette16, columns: 1, cellRows: 1)
                == Self.open + "\u{1B}[H\u{1B}[91;44m\u{2580}\u{1B}[0m" + Self.close)
    }

    @Test func monochromeNeedsNoColourAtAll() {
        // White over black: the default foreground on the default background, upper half block.
        #expect(firstFrame([[white], [black]], mode: .monochrome, columns: 1, cellRows: 1)
                == Self.open + "\u{1B}[H\u{2580}" + Self.close)
        // Black over white: the lower half block, still without SGR.
        #expect(firstFrame([[black], [white]], mode: .monochrome, columns: 1, cellRows: 1)
                == Self.open + "\u{1B}[H\u{2584}" + Self.close)
    }

    @Test func equalHalvesBecomeASpaceWithBackground() {
        #expect(firstFrame([[red], [red]], mode: .truecolor, columns: 1, cellRows: 1)
                == Self.open + "\u{1B}[H\u{1B}[48;2;255;0;0m \u{1B}[0m" + Self.close)
    }

    @Test func glyphChoiceReusesTheColoursAlreadySet() {
        // Cell 1: red over blue (▀ fg red, bg blue). Cell 2: blue over red: ▄ keeps both colours
        // (fg red is the lower pixel, bg blue the upper) and needs no SGR at all.
        // Cell 3: blue over blue: a space on the blue background already set.
        #expect(firstFrame([[red, blue, blue], [blue, red, blue]], mode: .truecolor, columns: 3, cellRows: 1)
                == Self.open + "\u{1B}[H\u{1B}[38;2;255;0;0;48;2;0;0;255m\u{2580}\u{2584} \u{1B}[0m" + Self.close)
    }

    @Test func blackOnAClearedScreenCostsNothingInMonochrome() {
        #expect(firstFrame([[black], [black]], mode: .monochrome, columns: 1, cellRows: 1) == Self.open + Self.close)
    }

    @Test func labelKeepsOneScalarPerCell() {
        #expect(VideoTile.narrow("a") == "a")
        #expect(VideoTile.narrow("\u{00E9}") == "\u{00E9}")
        #expect(VideoTile.narrow("\u{4E2D}") == "?")       // CJK: two cells wide
        #expect(VideoTile.narrow("\u{1B}") == "?")
    }

    @Test func labelIsDrawnOverTheTopLeftCorner() {
        let out = firstFrame([[red, red, red, red], [red, red, red, red]], mode: .palette256, columns: 4, cellRows: 1, label: "a")
        // " a " on 255/236, then the last cell's video (a space on red, index 196).
        #expect(out == Self.open + "\u{1B}[H\u{1B}[38;5;255;48;5;236m a \u{1B}[48;5;196m \u{1B}[0m" + Self.close)
    }
}

@Suite struct CursorMoveTests {
    /// Draws single cells at the given positions, in order, and returns the bytes between the
    /// frame marks.
    func moves(_ cells: [(Int, Int)], columns: Int = 40, rows: Int = 10) -> String {
        let screen = TerminalScreen(columns: columns, rows: rows)
        _ = screen.finishFrame()        // the initial clear
        let red = TermColor.rgb(RGB(255, 0, 0))
        for (c, r) in cells { screen.put(column: c, row: r, top: red, bottom: red) }
        var s = String(decoding: screen.finishFrame(), as: UTF8.self)
        s = String(s.dropFirst("\u{1B}[?2026h".count).dropLast("\u{1B}[0m\u{1B}[?2026l".count))
        return s
    }

    @Test func choosesTheShortestMove() {
        let bg = "\u{1B}[48;2;255;0;0m"
        // CUP to (3,5); the next cell is adjacent (no move); a gap of 1 is CUF without a count.
        #expect(moves([(4, 2), (5, 2), (7, 2)]) == "\u{1B}[3;5H" + bg + "  \u{1B}[C ")
        // Next row, column 0: CR LF (2 bytes) beats CUP.
        #expect(moves([(4, 2), (0, 3)]) == "\u{1B}[3;5H" + bg + " \r\n ")
        // Two rows down at column 3: CR LF LF CUF3 (7 bytes) beats CUP ESC[5;4H (6)? No: CUP wins.
        #expect(moves([(4, 2), (3, 4)]) == "\u{1B}[3;5H" + bg + " \u{1B}[5;4H ")
        // Back on the same row: CR + CUF beats CUB when the target is near the left edge.
        #expect(moves([(20, 2), (1, 2)]) == "\u{1B}[3;21H" + bg + " \r\u{1B}[C ")
        // Home is ESC [ H.
        #expect(moves([(0, 0)]) == "\u{1B}[H" + bg + " ")
    }

    @Test func lastColumnForgetsTheCursor() {
        // After writing the last column the cursor is in pending-wrap state: a CUP follows, not CR LF.
        let bg = "\u{1B}[48;2;255;0;0m"
        #expect(moves([(3, 0), (0, 1)], columns: 4, rows: 3) == "\u{1B}[1;4H" + bg + " \u{1B}[2H ")
    }
}
