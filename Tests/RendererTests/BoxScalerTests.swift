import Testing
@testable import Renderer

@Suite struct BoxScalerTests {
    func i420(_ w: Int, _ h: Int, y: (Int, Int) -> UInt8, u: UInt8 = 128, v: UInt8 = 128,
              padding: Int = 0) throws -> I420Image {
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let ys = w + padding, cs = cw + padding
        var yp = [UInt8](repeating: 7, count: ys * h)
        for r in 0..<h { for c in 0..<w { yp[r * ys + c] = y(c, r) } }
        var up = [UInt8](repeating: 7, count: cs * ch), vp = up
        for r in 0..<ch { for c in 0..<cw { up[r * cs + c] = u; vp[r * cs + c] = v } }
        return try I420Image(width: w, height: h, y: yp, yStride: ys, u: up, uStride: cs, v: vp, vStride: cs)
    }

    func scale(_ input: VideoInput, _ w: Int, _ h: Int) -> [UInt8] {
        var out: [UInt8] = []
        BoxScaler().scale(input, width: w, height: h, into: &out)
        return out
    }

    @Test func studioLevelsMapToFullRange() {
        #expect(YUV.toRGB(y: 16, u: 128, v: 128) == .black)
        #expect(YUV.toRGB(y: 235, u: 128, v: 128) == .white)
        // 75% red bar (Y 65, Cb 100, Cr 212) is about (191, 0, 0).
        let red = YUV.toRGB(y: 65, u: 100, v: 212)
        #expect(abs(Int(red.r) - 191) <= 2 && red.g <= 2 && red.b <= 2)
    }

    @Test func oneByOneSourceFillsEveryPixel() throws {
        let out = scale(.i420(try i420(1, 1, y: { _, _ in 235 })), 5, 3)
        #expect(out.count == 5 * 3 * 3)
        #expect(out.allSatisfy { $0 == 255 })
    }

    @Test func downscaleToOnePixelIsTheMean() throws {
        // Luma 16..(16+6*5) over a 7x5 picture: mean (16 + 46)/2 = 31 after the area average.
        let f = try i420(7, 5, y: { c, r in UInt8(16 + c * 5) })
        let out = scale(.i420(f), 1, 1)
        let expected = YUV.toRGB(y16: Int32(31 * 16), u16: 2048, v16: 2048)
        #expect(out == [expected.r, expected.g, expected.b])
    }

    @Test func oddSizesAverageFractionalAreas() throws {
        // 3 pixels into 2: the middle pixel is split half and half.
        let rgb = TestSupport.picture([[RGB(0, 0, 0), RGB(90, 90, 90), RGB(180, 180, 180)]])
        let out = scale(.rgb(rgb), 2, 1)
        // Left: (0*2 + 90*1)/3 = 30; right: (90*1 + 180*2)/3 = 150.
        #expect(out == [30, 30, 30, 150, 150, 150])
    }

    @Test func stridesDoNotChangeTheResult() throws {
        let pattern: (Int, Int) -> UInt8 = { c, r in UInt8(16 + (c * 37 + r * 11) % 200) }
        let packed = try i420(33, 17, y: pattern, u: 90, v: 170)
        let padded = try i420(33, 17, y: pattern, u: 90, v: 170, padding: 13)
        #expect(scale(.i420(packed), 10, 6) == scale(.i420(padded), 10, 6))
    }

    @Test func rgbInputWithStrideMatchesPacked() throws {
        let packed = TestSupport.picture([[RGB(10, 20, 30), RGB(40, 50, 60)], [RGB(70, 80, 90), RGB(100, 110, 120)]])
        var strided: [UInt8] = []
        for r in 0..<2 { strided += Array(packed.pixels[(r * 6)..<(r * 6 + 6)]) + [1, 2, 3] }
        let s = try RGBImage(width: 2, height: 2, stride: 9, pixels: strided)
        #expect(scale(.rgb(packed), 1, 1) == scale(.rgb(s), 1, 1))
        #expect(scale(.rgb(s), 1, 1) == [55, 65, 75])
    }

    @Test func extremeAspectIsLetterboxed() {
        let wide = Letterbox(sourceWidth: 1000, sourceHeight: 1, areaWidth: 64, areaHeight: 48)
        #expect(wide.width == 64 && wide.height == 1 && wide.y == 23 && wide.x == 0)
        let tall = Letterbox(sourceWidth: 1, sourceHeight: 1000, areaWidth: 64, areaHeight: 48)
        #expect(tall.width == 1 && tall.height == 48 && tall.x == 31)
        let exact = Letterbox(sourceWidth: 320, sourceHeight: 240, areaWidth: 128, areaHeight: 96)
        #expect(exact == Letterbox(sourceWidth: 4, sourceHeight: 3, areaWidth: 128, areaHeight: 96))
        #expect(exact.width == 128 && exact.height == 96 && exact.x == 0 && exact.y == 0)
    }

    @Test func extremeAspectDownscaleKeepsColumns() throws {
        // A 1000x1 ramp into 4x1 pixels: each output is the mean of its quarter.
        var y = [UInt8](repeating: 0, count: 1000)
        for i in 0..<1000 { y[i] = i < 500 ? 16 : 235 }
        let f = try I420Image(width: 1000, height: 1, y: y, u: [UInt8](repeating: 128, count: 500), v: [UInt8](repeating: 128, count: 500))
        let out = scale(.i420(f), 4, 1)
        #expect(out == [0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255])
    }

    @Test func invalidPlanesAreRejected() {
        #expect(throws: RendererError.self) { try I420Image(width: 4, height: 4, y: [UInt8](repeating: 0, count: 15), u: [0, 0, 0, 0], v: [0, 0, 0, 0]) }
        #expect(throws: RendererError.self) {
            try I420Image(width: 4, height: 2, y: [UInt8](repeating: 0, count: 8), yStride: 3, u: [0, 0], uStride: 2, v: [0, 0], vStride: 2)
        }
        #expect(throws: RendererError.self) { try RGBImage(width: 2, height: 1, pixels: [1, 2, 3]) }
    }
}
