// Renderer: module overview (kept as a Swift comment so SwiftPM needs no resource rules).
//
// # Renderer
//
// Pure Swift (no Foundation I/O, no clock, no curses): video frames and tile rectangles in, terminal
// bytes (and the cell grid they produce) out, with memory of what the terminal already shows.
//
// - `PlanarImage.swift`: `I420Image` (any size, any strides) and `RGBImage`, the renderer's own inputs.
// - `BoxScaler.swift`: exact area-average resampling to any pixel grid, BT.601 limited-range to RGB.
// - `Letterbox.swift`: where a picture sits inside a tile (aspect kept, centred, black bars).
// - `RGB.swift`, `TermColor.swift`, `Palette.swift`, `ColorMode.swift`: colours, SGR encoding, the
//   xterm palettes (256-colour mode uses only the stable entries 16-255), ordered dithering, detection.
// - `Cell.swift`: a character cell and the four half-block glyphs.
// - `TerminalScreen.swift`: the model of the terminal and the only writer of bytes: cheapest cursor
//   moves, SGR only on change, glyph choice, synchronized output, full repaint on request.
// - `VideoTile.swift`, `TileOptions.swift`: one picture in a rectangle with a label; tolerance plus
//   temporal hysteresis decide which cells to repaint; background refresh against drift.
// - `ByteBudget.swift`: token bucket shared by all tiles; over budget, tiles drop frames and raise tolerances.
// - `TerminalModel.swift`: a small VT parser that replays bytes into cells (tests and `conftui-bench renderer`).
//
// Use: one `TerminalScreen` per terminal, one `VideoTile` per picture; per frame call
// `tile.render(.i420(image), now: seconds, on: screen)` for each tile, then write
// `screen.finishFrame()` to the terminal. A curses front can read `screen.cells` instead.
