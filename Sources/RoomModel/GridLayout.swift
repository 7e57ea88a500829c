/// A rectangle of terminal cells (x to the right, y down; both from 0).
public struct CellRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public func intersects(_ o: CellRect) -> Bool {
        !isEmpty && !o.isEmpty && x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY
    }
    public func contains(_ o: CellRect) -> Bool {
        o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY
    }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// One tile (a participant's main video or a further stream): the whole `frame`, the `video` area inside it (aspect kept with
/// half-block pixels, letterboxed), and the row its label sits on.
public struct TileLayout: Sendable, Equatable {
    public let id: TileID
    public let frame: CellRect
    public let video: CellRect
    public let labelRow: Int
}

/// How the room is drawn in a given area: a grid of tiles, three per row, or, when the terminal is
/// too small for tiles, a compact list (one tile per line; `hidden` did not fit).
public enum GridLayout: Sendable, Equatable {
    case tiles([TileLayout], columns: Int)
    case list(rows: [(id: TileID, y: Int)], hidden: Int)

    public static func == (a: GridLayout, b: GridLayout) -> Bool {
        switch (a, b) {
        case let (.tiles(x, c1), .tiles(y, c2)): return x == y && c1 == c2
        case let (.list(r1, h1), .list(r2, h2)):
            return h1 == h2 && r1.count == r2.count && zip(r1, r2).allSatisfy { $0.id == $1.id && $0.y == $1.y }
        default: return false
        }
    }

    /// Tiles per row. The design fixes three: the local tile first, then peers in join order (each followed by its
    /// further streams' tiles).
    public static let perRow = 3
    /// The smallest tile worth drawing: below this the list view is clearer.
    public static let minTileWidth = 12
    public static let minTileHeight = 4   // three rows of video (six pixels) and a label

    /// Lays out `participants` (tiles in grid order, `Room.gridOrder`) in `area`.
    /// `aspect(id)` gives each tile's video width/height in pixels.
    public static func make(for participants: [TileID], in area: CellRect,
                            aspect: (TileID) -> Double = { _ in 4.0 / 3.0 }) -> GridLayout {
        let n = participants.count
        guard n > 0, !area.isEmpty else { return .list(rows: [], hidden: n) }
        let columns = min(perRow, n)
        let rows = (n + columns - 1) / columns
        let tileWidth = area.width / columns
        let tileHeight = area.height / rows
        guard tileWidth >= minTileWidth, tileHeight >= minTileHeight else {
            return listLayout(participants, in: area)
        }
        // Centre the grid: leftover columns and rows split evenly on both sides.
        let originX = area.x + (area.width - tileWidth * columns) / 2
        let originY = area.y + (area.height - tileHeight * rows) / 2
        var tiles: [TileLayout] = []
        tiles.reserveCapacity(n)
        for (index, id) in participants.enumerated() {
            let frame = CellRect(x: originX + (index % columns) * tileWidth,
                                 y: originY + (index / columns) * tileHeight,
                                 width: tileWidth, height: tileHeight)
            // One column of gap on the right of every tile, one row for the label at the bottom.
            let inner = CellRect(x: frame.x, y: frame.y, width: frame.width - 1, height: frame.height - 1)
            tiles.append(TileLayout(id: id, frame: frame,
                                    video: fit(aspect: aspect(id), in: inner),
                                    labelRow: frame.maxY - 1))
        }
        return .tiles(tiles, columns: columns)
    }

    /// The largest rectangle of the given pixel aspect inside `box`, centred. A cell holds two
    /// pixels stacked (U+2580 half blocks), so `rows` cells are `2 * rows` pixels tall.
    public static func fit(aspect: Double, in box: CellRect) -> CellRect {
        guard !box.isEmpty else { return CellRect(x: box.x, y: box.y, width: 0, height: 0) }
        let a = (aspect.isFinite && aspect > 0) ? min(max(aspect, 0.1), 10) : 4.0 / 3.0
        var width = box.width
        var height = Int((Double(width) / (2 * a)).rounded())
        if height > box.height {
            height = box.height
            width = min(box.width, Int((Double(height) * 2 * a).rounded()))
        }
        width = max(1, width)
        height = max(1, height)
        return CellRect(x: box.x + (box.width - width) / 2, y: box.y + (box.height - height) / 2,
                        width: width, height: height)
    }

    static func listLayout(_ participants: [TileID], in area: CellRect) -> GridLayout {
        let n = participants.count
        guard area.height > 0 else { return .list(rows: [], hidden: n) }
        // When they do not all fit, the last line says how many are hidden.
        let shown = n <= area.height ? n : max(0, area.height - 1)
        let rows = participants.prefix(shown).enumerated().map { (id: $0.element, y: area.y + $0.offset) }
        return .list(rows: Array(rows), hidden: n - shown)
    }
}
