/// One character cell: a glyph with its foreground and background colours.
public struct Cell: Hashable, Sendable {
    /// The Unicode scalar shown (U+0020 space, U+2580 upper half, U+2584 lower half, U+2588 full
    /// block, or a label character).
    public var glyph: Unicode.Scalar
    public var foreground: TermColor
    public var background: TermColor

    public init(glyph: Unicode.Scalar, foreground: TermColor, background: TermColor) {
        self.glyph = glyph; self.foreground = foreground; self.background = background
    }

    public static let upperHalf: Unicode.Scalar = "\u{2580}"
    public static let lowerHalf: Unicode.Scalar = "\u{2584}"
    public static let fullBlock: Unicode.Scalar = "\u{2588}"
    public static let space: Unicode.Scalar = " "

    /// What an erased cell holds: a space on the default background.
    public static let blank = Cell(glyph: space, foreground: .defaultForeground, background: .defaultBackground)

    /// The colours of the upper and lower pixel if the glyph is one of the four block glyphs.
    public var pixels: (top: TermColor, bottom: TermColor)? {
        switch glyph {
        case Cell.upperHalf: return (foreground, background)
        case Cell.lowerHalf: return (background, foreground)
        case Cell.fullBlock: return (foreground, foreground)
        case Cell.space: return (background, background)
        default: return nil
        }
    }
}

/// A rectangle of cells on the screen (0-based column and row).
public struct CellRect: Hashable, Sendable {
    public var column: Int
    public var row: Int
    public var width: Int
    public var height: Int
    public init(column: Int, row: Int, width: Int, height: Int) {
        self.column = column; self.row = row; self.width = width; self.height = height
    }
}
