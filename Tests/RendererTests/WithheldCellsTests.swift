import Testing
@testable import Renderer

/// A curses overlay box over the video: the screen writes nothing into its cells, forgets what they
/// show, and after `invalidate()` (the box closed) the tiles repaint them.
@Suite struct WithheldCellsTests {
    func picture(_ columns: Int, _ rows: Int, shade: UInt8) -> RGBImage {
        TestSupport.picture(Array(repeating: Array(repeating: RGB(shade, 0, 255 - shade), count: columns), count: rows * 2))
    }

    @Test func nothingIsWrittenIntoTheBoxAndItIsRepaintedOnClose() {
        let screen = TerminalScreen(columns: 4, rows: 2)
        let tile = VideoTile(rect: CellRect(column: 0, row: 0, width: 4, height: 2),
                             options: TileOptions(colorMode: .truecolor, dither: false, refreshPeriod: nil))
        screen.withheld = CellRect(column: 1, row: 0, width: 2, height: 1)
        tile.render(.rgb(picture(4, 2, shade: 10)), now: 0, on: screen)
        _ = screen.finishFrame()
        #expect(screen.known[0] && screen.known[3] && screen.known[4])
        #expect(!screen.known[1] && !screen.known[2])
        #expect(screen.cell(column: 1, row: 0) == .blank)
        // The box closes: the caller invalidates and every cell, the withheld ones included, is drawn.
        screen.withheld = nil
        screen.invalidate()
        _ = screen.finishFrame()
        tile.render(.rgb(picture(4, 2, shade: 10)), now: 1, on: screen)
        _ = screen.finishFrame()
        #expect(screen.known.allSatisfy { $0 })
        #expect(screen.cell(column: 1, row: 0) == screen.cell(column: 0, row: 0))
    }
}
