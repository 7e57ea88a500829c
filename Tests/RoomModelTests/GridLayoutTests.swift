import Testing
@testable import RoomModel

private func ids(_ n: Int) -> [TileID] { (0..<n).map { TileID(ParticipantID("p\($0)")) } }

/// The sizes the design names: clear at 80x24, beautiful at 200x60; one status row at the bottom.
@Test(arguments: [(80, 24), (120, 40), (200, 60)])
func tilesNeverOverlapOrLeaveTheScreenAndAreThreePerRow(size: (Int, Int)) {
    let area = CellRect(x: 0, y: 0, width: size.0, height: size.1 - 1)
    for n in 1...12 {
        guard case .tiles(let tiles, let columns) = GridLayout.make(for: ids(n), in: area) else {
            Issue.record("\(n) participants at \(size.0)x\(size.1) fell back to the list view")
            continue
        }
        #expect(columns == min(3, n), "three per row whenever they fit (n=\(n))")
        #expect(tiles.map(\.id) == ids(n), "grid order kept")
        for (i, t) in tiles.enumerated() {
            #expect(area.contains(t.frame), "tile \(i) of \(n) inside the screen: \(t.frame)")
            #expect(t.frame.contains(t.video), "video inside its tile")
            #expect(t.video.maxY <= t.labelRow, "the label row is not covered by video")
            #expect(t.video.width >= 1 && t.video.height >= 1)
            // row-major: tile i sits in row i/3, column i%3
            if i > 0 {
                let prev = tiles[i - 1]
                if i % columns == 0 { #expect(t.frame.y > prev.frame.y && t.frame.x < prev.frame.x) }
                else { #expect(t.frame.y == prev.frame.y && t.frame.x > prev.frame.x) }
            }
            for u in tiles[(i + 1)...] {
                #expect(!t.frame.intersects(u.frame), "tiles \(t.frame) and \(u.frame) overlap")
            }
            // aspect 4:3 kept within one cell of rounding: width / (2 * height) ~ 4/3
            let aspect = Double(t.video.width) / Double(2 * t.video.height)
            let tolerance = 4.0 / 3.0 * (1.0 / Double(t.video.width) + 1.0 / Double(t.video.height)) + 0.01
            #expect(abs(aspect - 4.0 / 3.0) <= tolerance, "aspect \(aspect) for \(t.video)")
        }
    }
}

@Test func aTinyTerminalGetsTheListView() {
    let area = CellRect(x: 0, y: 0, width: 20, height: 4)   // a 20x5 terminal less its status row
    let layout = GridLayout.make(for: ids(6), in: area)
    guard case .list(let rows, let hidden) = layout else {
        Issue.record("expected the list view, got \(layout)")
        return
    }
    #expect(rows.map(\.y) == [0, 1, 2])
    #expect(hidden == 3, "the last line says how many more")
    #expect(GridLayout.make(for: ids(2), in: CellRect(x: 0, y: 0, width: 20, height: 4))
            == .list(rows: [(TileID(ParticipantID("p0")), 0), (TileID(ParticipantID("p1")), 1)], hidden: 0))
}

@Test func anEmptyAreaLaysOutNothing() {
    #expect(GridLayout.make(for: ids(3), in: CellRect(x: 0, y: 0, width: 0, height: 0)) == .list(rows: [], hidden: 3))
    #expect(GridLayout.make(for: [], in: CellRect(x: 0, y: 0, width: 80, height: 23)) == .list(rows: [], hidden: 0))
}

@Test func fitKeepsAspectAndCentres() {
    // 16:9 in a 40x20 box: width-limited, 40 wide, 40/(2*16/9)=11.25 → 11 rows, centred vertically
    let r = GridLayout.fit(aspect: 16.0 / 9.0, in: CellRect(x: 10, y: 5, width: 40, height: 20))
    #expect(r == CellRect(x: 10, y: 9, width: 40, height: 11))
    // 4:3 in a 100x10 box: height-limited, 10 rows → 27 wide, centred horizontally
    let s = GridLayout.fit(aspect: 4.0 / 3.0, in: CellRect(x: 0, y: 0, width: 100, height: 10))
    #expect(s == CellRect(x: 36, y: 0, width: 27, height: 10))
    // garbage aspects fall back to 4:3 rather than dividing by zero
    #expect(GridLayout.fit(aspect: .nan, in: CellRect(x: 0, y: 0, width: 100, height: 10)) == s)
    #expect(GridLayout.fit(aspect: 0, in: CellRect(x: 0, y: 0, width: 100, height: 10)) == s)
}

@Test func perParticipantAspectIsUsed() {
    let area = CellRect(x: 0, y: 0, width: 120, height: 39)
    guard case .tiles(let tiles, _) = GridLayout.make(for: ids(2), in: area, aspect: { $0.participant.rawValue == "p1" ? 16.0 / 9.0 : 4.0 / 3.0 }) else {
        Issue.record("expected tiles"); return
    }
    #expect(tiles[1].video.height < tiles[0].video.height || tiles[1].video.width > tiles[0].video.width)
}
