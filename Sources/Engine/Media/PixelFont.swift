/// Capital letters, digits and a few marks as 5x7 pixel glyphs drawn with rectangles, so a
/// synthetic picture can carry a participant's name without a font file or a text renderer.
enum PixelFont {
    static let glyphWidth = 5, glyphHeight = 7

    /// Each glyph is 7 rows of 5 columns, "#" marking a lit pixel.
    static let glyphs: [Character: [String]] = [
        "A": [" ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
        "B": ["#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### "],
        "C": [" ####", "#    ", "#    ", "#    ", "#    ", "#    ", " ####"],
        "D": ["#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### "],
        "E": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"],
        "F": ["#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    "],
        "G": [" ####", "#    ", "#    ", "#  ##", "#   #", "#   #", " ####"],
        "H": ["#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #"],
        "I": ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "#####"],
        "J": ["  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  "],
        "K": ["#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #"],
        "L": ["#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####"],
        "M": ["#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #"],
        "N": ["#   #", "##  #", "# # #", "#  ##", "#   #", "#   #", "#   #"],
        "O": [" ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
        "P": ["#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "],
        "Q": [" ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #"],
        "R": ["#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"],
        "S": [" ####", "#    ", "#    ", " ### ", "    #", "    #", "#### "],
        "T": ["#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "],
        "U": ["#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### "],
        "V": ["#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  "],
        "W": ["#   #", "#   #", "#   #", "# # #", "# # #", "## ##", "#   #"],
        "X": ["#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #"],
        "Y": ["#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "],
        "Z": ["#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####"],
        "0": [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
        "1": ["  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### "],
        "2": [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
        "3": ["#### ", "    #", "    #", " ### ", "    #", "    #", "#### "],
        "4": ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
        "5": ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
        "6": [" ### ", "#    ", "#    ", "#### ", "#   #", "#   #", " ### "],
        "7": ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
        "8": [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
        "9": [" ### ", "#   #", "#   #", " ####", "    #", "    #", " ### "],
        "#": [" # # ", " # # ", "#####", " # # ", "#####", " # # ", " # # "],
        " ": ["     ", "     ", "     ", "     ", "     ", "     ", "     "],
        ".": ["     ", "     ", "     ", "     ", "     ", " ##  ", " ##  "],
        "_": ["     ", "     ", "     ", "     ", "     ", "     ", "#####"],
        "-": ["     ", "     ", "     ", "#####", "     ", "     ", "     "],
        "?": [" ### ", "#   #", "    #", "   # ", "  #  ", "     ", "  #  "],
    ]

    /// The width in pixels of `text` drawn at `scale` pixels per glyph pixel (one blank column between glyphs).
    static func width(of text: String, scale: Int) -> Int {
        text.isEmpty ? 0 : (text.count * (glyphWidth + 1) - 1) * scale
    }

    /// Draws `text` (upper-cased; characters without a glyph as "?") with its top-left corner at (x, y).
    static func draw(_ text: String, on canvas: inout I420Canvas, x: Int, y: Int, scale: Int, yuv: (UInt8, UInt8, UInt8)) {
        draw(text, on: &canvas, x: x, y: y, scaleX: scale, scaleY: scale, yuv: yuv)
    }

    /// The same with glyph pixels `scaleX` wide and `scaleY` tall (a name that must fit the width keeps its height).
    static func draw(_ text: String, on canvas: inout I420Canvas, x: Int, y: Int, scaleX: Int, scaleY: Int,
                     yuv: (UInt8, UInt8, UInt8)) {
        var cx = x
        for ch in text.uppercased() {
            let rows = glyphs[ch] ?? glyphs["?"]!
            for (r, row) in rows.enumerated() {
                for (c, pixel) in row.enumerated() where pixel == "#" {
                    canvas.fill(x: cx + c * scaleX, y: y + r * scaleY, w: scaleX, h: scaleY, yuv: yuv)
                }
            }
            cx += (glyphWidth + 1) * scaleX
        }
    }
}
