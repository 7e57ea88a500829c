import Testing
@testable import EngineMedia

@Test func colourBarsShowTheSevenBarsAndAMovingSquare() throws {
    let bars = try ColorBarsSource(width: 320, height: 240, frameRate: 30)
    let first = try #require(try bars.nextFrame())
    // 75 % bars in BT.601 studio levels: white, yellow, cyan, green, magenta, red, blue (Y values).
    let expectedY: [UInt8] = [180, 162, 131, 112, 84, 65, 35]
    let row = 20    // above the bouncing square's band (the grey ramp starts at 3/4 of the height)
    for (i, y) in expectedY.enumerated() {
        let x = i * 320 / 7 + 320 / 14
        #expect(first.y[row * first.yStride + x] == y, "bar \(i)")
    }
    // The grey ramp at the bottom rises from black to white.
    let bottom = 235 * first.yStride
    #expect(first.y[bottom] < 20 && first.y[bottom + 319] > 230)
    // The white square moves between frames.
    func squareX(_ f: VideoFrame) -> Int? {
        let y0 = (180 - 240 / 6) / 2 + 240 / 12   // middle of the square's rows
        return (0..<320).first { f.y[y0 * f.yStride + $0] == 235 }
    }
    let x0 = try #require(squareX(first))
    _ = try bars.nextFrame()
    let third = try #require(try bars.nextFrame())
    let x2 = try #require(squareX(third))
    #expect(x2 != x0, "the square moved (\(x0) → \(x2))")
    #expect(third.timestamp > first.timestamp)
}

@Test func theClockChangesWithTheTimeAndFillsItsSecondsBar() throws {
    var now = 1_700_000_000.0
    let clock = try ClockSource(width: 320, height: 240, clock: { [now] in now })
    let a = try #require(try clock.nextFrame())
    now += 1
    let later = try ClockSource(width: 320, height: 240, clock: { [now] in now })
    let b = try #require(try later.nextFrame())
    #expect(a.y != b.y, "a second later the digits differ")
    // the seconds' last digit is drawn inside the frame: its right edge differs between the two
    let rightHalf = { (f: VideoFrame) in (0..<240).flatMap { r in f.y[(r * f.yStride + 240)..<(r * f.yStride + 320)] } }
    #expect(rightHalf(a) != rightHalf(b), "the seconds digits are inside the frame")
    let quarter = try ClockSource(width: 320, height: 240, clock: { 1_700_000_000.25 })
    let three = try ClockSource(width: 320, height: 240, clock: { 1_700_000_000.75 })
    func barLength(_ f: VideoFrame) -> Int {
        let row = 239
        return (0..<320).filter { f.y[row * f.yStride + $0] == 120 }.count
    }
    let q = barLength(try #require(try quarter.nextFrame())), t = barLength(try #require(try three.nextFrame()))
    #expect(q == 80 && t == 240, "seconds bar \(q) and \(t) of 320 at .25 s and .75 s")
}
