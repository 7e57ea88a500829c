import EngineTestSupport
import Testing
@testable import Renderer

@Suite struct PaletteTests {
    @Test func nearest256IsTheExactNearestOfTheStableEntries() {
        var rng = SplitMixRandom(seed: 42)
        for _ in 0..<3000 {
            let c = RGB(rng.byte(), rng.byte(), rng.byte())
            var best = Int.max
            for n in 16...255 { best = min(best, c.squaredDistance(to: Palette.rgb(index: UInt8(n)))) }
            let got = Palette.nearest256(c)
            #expect(got >= 16)
            #expect(c.squaredDistance(to: Palette.rgb(index: got)) == best, "colour \(c)")
        }
    }

    @Test func paletteValues() {
        #expect(Palette.rgb(index: 16) == .black)
        #expect(Palette.rgb(index: 231) == .white)
        #expect(Palette.rgb(index: 196) == RGB(255, 0, 0))
        #expect(Palette.rgb(index: 232) == RGB(8, 8, 8))
        #expect(Palette.rgb(index: 255) == RGB(238, 238, 238))
    }

    @Test func ditheringIsStableAndKeepsTheMean() {
        // A flat colour dithered over a 4x4 block: same indices every time, average close to it.
        for c in [RGB(200, 150, 120), RGB(120, 120, 124), RGB(30, 60, 90)] {
            var sum = (0, 0, 0)
            for y in 0..<4 { for x in 0..<4 {
                let n = Palette.dithered256(c, x: x, y: y)
                #expect(n >= 16)
                #expect(n == Palette.dithered256(c, x: x + 4, y: y + 8))
                let p = Palette.rgb(index: n)
                sum.0 += Int(p.r); sum.1 += Int(p.g); sum.2 += Int(p.b)
            }}
            #expect(abs(sum.0 / 16 - Int(c.r)) <= 6 && abs(sum.1 / 16 - Int(c.g)) <= 6 && abs(sum.2 / 16 - Int(c.b)) <= 6, "colour \(c)")
        }
    }

    @Test func perceptualDistanceIsSymmetric() {
        var rng = SplitMixRandom(seed: 3)
        for _ in 0..<2000 {
            let a = RGB(rng.byte(), rng.byte(), rng.byte()), b = RGB(rng.byte(), rng.byte(), rng.byte())
            #expect(a.distance(to: b) == b.distance(to: a), "\(a) \(b)")
        }
    }

    @Test func perceptualDistanceWeighsLumaFully() {
        #expect(RGB(100, 100, 100).distance(to: RGB(108, 108, 108)) == 8)
        #expect(RGB(100, 100, 100).distance(to: RGB(100, 100, 100)) == 0)
        // A pure hue shift with equal luma counts half.
        let d = RGB(120, 100, 100).distance(to: RGB(100, 110, 100))
        #expect(d > 0 && d < 20)
    }
}

@Suite struct ColorModeTests {
    @Test func colortermTruecolorWins() {
        #expect(ColorMode.detect(environment: ["COLORTERM": "truecolor", "TERM": "xterm-256color"], terminfoColors: 256) == .truecolor)
        #expect(ColorMode.detect(environment: ["COLORTERM": "24bit", "TERM": "screen"], terminfoColors: 8) == .truecolor)
    }
    @Test func terminfoDecidesOtherwise() {
        #expect(ColorMode.detect(environment: ["TERM": "xterm-256color"], terminfoColors: 256) == .palette256)
        #expect(ColorMode.detect(environment: ["TERM": "xterm"], terminfoColors: 8) == .palette16)
        #expect(ColorMode.detect(environment: ["TERM": "vt100"], terminfoColors: -1) == .palette16)
        #expect(ColorMode.detect(environment: ["TERM": "xterm-direct"], terminfoColors: 16_777_216) == .truecolor)
        #expect(ColorMode.detect(environment: ["TERM": "tmux-256color"], terminfoColors: nil) == .palette256)
    }
    @Test func noColourCases() {
        #expect(ColorMode.detect(environment: ["TERM": "dumb"], terminfoColors: nil) == .monochrome)
        #expect(ColorMode.detect(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"], terminfoColors: 256) == .monochrome)
        #expect(ColorMode.detect(environment: [:], terminfoColors: nil) == .monochrome)
    }
    @Test func argumentsParse() {
        #expect(ColorMode(argument: "truecolor") == .truecolor)
        #expect(ColorMode(argument: "256") == .palette256)
        #expect(ColorMode(argument: "16") == .palette16)
        #expect(ColorMode(argument: "mono") == .monochrome)
        #expect(ColorMode(argument: "lots") == nil)
    }
}
