import Testing
@testable import EngineMedia

/// The name on a `FaceSource` must be readable in a terminal tile: a 40x18-cell tile shows the 320x240 picture as
/// about 40x36 half-block pixels (40x30 once the renderer keeps the aspect ratio). These tests shrink the frame the way
/// the renderer does (each tile pixel the mean of its rectangle of frame pixels), binarise the name band, and read
/// the text back by matching every character cell against all of PixelFont's glyphs, without being told the name.

/// The luma plane box-downscaled to `w` x `h`.
func boxDownscaledLuma(_ f: VideoFrame, _ w: Int, _ h: Int) -> [[Double]] {
    (0..<h).map { j in
        let y0 = j * f.height / h, y1 = (j + 1) * f.height / h
        return (0..<w).map { i in
            let x0 = i * f.width / w, x1 = (i + 1) * f.width / w
            var sum = 0
            for y in y0..<y1 { for x in x0..<x1 { sum += Int(f.y[y * f.yStride + x]) } }
            return Double(sum) / Double((y1 - y0) * (x1 - x0))
        }
    }
}

struct NameReading {
    var text = ""
    /// Glyph pixels (of 35 per character) that disagree with the best glyph, per character.
    var misses: [Int] = []
    /// The best glyph's lead over the runner-up, per character.
    var margins: [Int] = []
}

/// Reads the name in the band of `frame` shown as `w` x `h` tile pixels: for each possible length (1 to 12
/// characters, which fixes where the glyph cells are), each cell is sampled at the centre of its 5x7 glyph pixels
/// and matched to the nearest glyph; the length that explains the band best (fewest disagreeing pixels, no lit tile
/// pixel left unexplained) wins.
func readName(_ frame: VideoFrame, tile w: Int, _ h: Int) -> NameReading {
    let tile = boxDownscaledLuma(frame, w, h)
    let band = FaceSource.nameBand.pixels(width: frame.width, height: frame.height)
    let bandRows = (band.y * h / frame.height)..<h
    let values = bandRows.flatMap { tile[$0] }
    let threshold = (values.min()! + values.max()!) / 2
    func lit(_ x: Int, _ y: Int) -> Bool { tile[min(y, h - 1)][min(x, w - 1)] > threshold }
    let glyphs = PixelFont.glyphs.map { (ch, rows) in (ch, rows.flatMap { $0.map { $0 == "#" } }) }
    var best: (score: Int, reading: NameReading)?
    for length in 1...12 {
        let layout = FaceSource.nameLayout(String(repeating: "W", count: length), width: frame.width, height: frame.height)
        var reading = NameReading(), explained = Set<[Int]>(), score = 0
        for k in 0..<length {
            var bits: [Bool] = []
            for r in 0..<PixelFont.glyphHeight {
                for c in 0..<PixelFont.glyphWidth {
                    let fx = layout.x + (k * (PixelFont.glyphWidth + 1) + c) * layout.scaleX + layout.scaleX / 2
                    let fy = layout.y + r * layout.scaleY + layout.scaleY / 2
                    let tx = fx * w / frame.width, ty = fy * h / frame.height
                    bits.append(lit(tx, ty))
                    explained.insert([tx, ty])
                }
            }
            let ranked = glyphs.map { (ch, g) in (ch, zip(g, bits).filter { $0 != $1 }.count) }.sorted { $0.1 < $1.1 }
            reading.text.append(ranked[0].0)
            reading.misses.append(ranked[0].1)
            reading.margins.append(ranked[1].1 - ranked[0].1)
            score += ranked[0].1
        }
        // Lit tile pixels of the band that no glyph cell of this length accounts for.
        for y in bandRows { for x in 0..<w where lit(x, y) && !explained.contains([x, y]) { score += 1 } }
        if best == nil || score < best!.score { best = (score, reading) }
    }
    return best!.reading
}

@Test(arguments: [(40, 36), (40, 30)])
func theNameReadsBackFromATerminalSizedTile(_ size: (Int, Int)) throws {
    for (name, participant) in [("Ada", 6), ("Grace", 226), ("Linus", 11), ("Radia", 225)] as [(String, UInt8)] {
        let face = try FaceSource(participant: participant, name: name, clock: { 0 })
        let reading = readName(try #require(try face.nextFrame()), tile: size.0, size.1)
        #expect(reading.text == name.uppercased(), "\(name) at \(size.0)x\(size.1): read \(reading)")
        // Every glyph pixel survives (D and O differ in two corners only, so a smudge would already misread).
        #expect(reading.misses.allSatisfy { $0 == 0 }, "\(name) at \(size.0)x\(size.1): \(reading.misses) glyph pixels off")
        #expect(reading.margins.allSatisfy { $0 >= 2 }, "\(name) at \(size.0)x\(size.1): margins \(reading.margins)")
    }
}

@Test func theNameIsAsLargeAsFitsAndOnlyLongNamesShrink() {
    let short = FaceSource.nameLayout("Ada", width: 320, height: 240)
    let five = FaceSource.nameLayout("Grace", width: 320, height: 240)
    let long = FaceSource.nameLayout("Margaret", width: 320, height: 240)
    // A glyph pixel of at least 10x10 frame pixels: 1.25 tile pixels across and down in a 40-column tile.
    #expect(short.scaleX == 10 && short.scaleY == 10 && five.scaleX == 10 && five.scaleY == 10)
    #expect(long.scaleX < 10 && long.scaleY == 10)
    #expect(PixelFont.width(of: long.text, scale: long.scaleX) <= 320)
    #expect(FaceSource.nameLayout("Frances Allen-Hopper", width: 320, height: 240).text == "FRANCES ALLE")
    let tiny = FaceSource.nameLayout("Radia", width: 64, height: 48)
    #expect(tiny.scaleX >= 1 && tiny.x + PixelFont.width(of: "RADIA", scale: tiny.scaleX) <= 64)
}
