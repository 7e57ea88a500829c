/// The colours a palette index stands for, and the mapping from RGB to a palette index.
///
/// Indices 0-15 are user-configurable in every terminal (themes change them freely), so the
/// 256-colour mode uses only 16-255: the 6x6x6 cube and the 24-step grey ramp, which xterm,
/// VTE, kitty, iTerm2 and tmux all define the same way. The 16-colour mode has no such choice;
/// it assumes xterm's defaults.
public enum Palette {
    /// The six levels of each axis of the xterm colour cube (indices 16-231).
    public static let cubeLevels: [UInt8] = [0, 95, 135, 175, 215, 255]

    /// xterm's default values for indices 0-15.
    public static let ansi16: [RGB] = [
        RGB(0, 0, 0), RGB(205, 0, 0), RGB(0, 205, 0), RGB(205, 205, 0),
        RGB(0, 0, 238), RGB(205, 0, 205), RGB(0, 205, 205), RGB(229, 229, 229),
        RGB(127, 127, 127), RGB(255, 0, 0), RGB(0, 255, 0), RGB(255, 255, 0),
        RGB(92, 92, 255), RGB(255, 0, 255), RGB(0, 255, 255), RGB(255, 255, 255),
    ]

    /// The RGB value of any of the 256 indices.
    public static func rgb(index n: UInt8) -> RGB {
        if n < 16 { return ansi16[Int(n)] }
        if n >= 232 { let g = UInt8(8 + 10 * (Int(n) - 232)); return RGB(g, g, g) }
        let k = Int(n) - 16
        return RGB(cubeLevels[k / 36], cubeLevels[k / 6 % 6], cubeLevels[k % 6])
    }

    /// What the terminal shows for `color`, assuming a dark theme for the default colours.
    public static func rgb(of color: TermColor) -> RGB {
        if let c = color.rgbValue { return c }
        if let i = color.index { return rgb(index: i) }
        return color == .defaultForeground ? RGB(229, 229, 229) : .black
    }

    @inline(__always) static func nearestCubeLevel(_ v: Int) -> Int {
        v < 48 ? 0 : v < 115 ? 1 : min(5, (v - 35) / 40)
    }

    /// The exact nearest (Euclidean RGB, as PSNR measures) of indices 16-255: the cube is a
    /// separable grid, so its nearest point is the per-channel nearest level; the nearest grey
    /// is the one nearest the channel mean; the better of the two wins.
    public static func nearest256(_ c: RGB) -> UInt8 {
        let r = Int(c.r), g = Int(c.g), b = Int(c.b)
        let cr = nearestCubeLevel(r), cg = nearestCubeLevel(g), cb = nearestCubeLevel(b)
        let cube = RGB(cubeLevels[cr], cubeLevels[cg], cubeLevels[cb])
        // The grey ramp step nearest the exact mean is k or k+1 (integer rounding): try both.
        let k0 = max(0, min(23, ((r + g + b) / 3 - 8) / 10))
        var bestGrey = k0, bestGreyD = Int.max
        for k in k0...min(23, k0 + 1) {
            let v = UInt8(8 + 10 * k)
            let d = c.squaredDistance(to: RGB(v, v, v))
            if d < bestGreyD { bestGreyD = d; bestGrey = k }
        }
        return bestGreyD < c.squaredDistance(to: cube) ? UInt8(232 + bestGrey) : UInt8(16 + 36 * cr + 6 * cg + cb)
    }

    /// The nearest of the 16 ANSI colours (Euclidean RGB).
    public static func nearest16(_ c: RGB) -> UInt8 {
        var best = 0, bestD = Int.max
        for i in 0..<16 { let d = c.squaredDistance(to: ansi16[i]); if d < bestD { bestD = d; best = i } }
        return UInt8(best)
    }

    /// A 4x4 Bayer matrix: thresholds (n + 0.5)/16 laid out so neighbouring pixels differ most.
    static let bayer4: [Int] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]

    /// Ordered dithering to indices 16-255: each channel picks the cube level above or below it
    /// by comparing its position between the two levels with the Bayer threshold of the pixel
    /// position. The pattern depends only on position and colour, so a static picture gives the
    /// same indices every frame and diffing still finds nothing to send. Near-neutral colours
    /// dither along the finer grey ladder (ramp and cube greys) instead, so walls stay grey.
    public static func dithered256(_ c: RGB, x: Int, y: Int) -> UInt8 {
        let t = bayer4[(y & 3) << 2 | (x & 3)] * 2 + 1      // threshold in 32nds
        let r = Int(c.r), g = Int(c.g), b = Int(c.b)
        let hi = max(r, max(g, b)), lo = min(r, min(g, b))
        if hi - lo <= 6 {
            let m = (r + g + b + 1) / 3
            // Grey ladder: 0, 8, 18, ..., 238, 255 (cube greys 95..215 sit between ramp steps).
            if m <= 8 { return m * 32 > t * 8 ? 232 : 16 }
            if m >= 238 { return (m - 238) * 32 > t * 17 ? 231 : 255 }
            let k = (m - 8) / 10, frac = (m - 8) % 10
            return UInt8(232 + (frac * 32 > t * 10 ? k + 1 : k))
        }
        func level(_ v: Int) -> Int {
            let i = v < 95 ? 0 : min(4, (v - 55) / 40)
            let l0 = Int(cubeLevels[i]), l1 = Int(cubeLevels[i + 1])
            return (v - l0) * 32 > t * (l1 - l0) ? i + 1 : i
        }
        return UInt8(16 + 36 * level(r) + 6 * level(g) + level(b))
    }

    /// Ordered dithering to the 16 ANSI colours: a position-dependent offset of up to half the
    /// palette's spacing, then the nearest colour.
    public static func dithered16(_ c: RGB, x: Int, y: Int) -> UInt8 {
        let off = (bayer4[(y & 3) << 2 | (x & 3)] * 2 + 1 - 16) * 3     // about ±48
        func ch(_ v: UInt8) -> UInt8 { UInt8(clamping: Int(v) + off) }
        return nearest16(RGB(ch(c.r), ch(c.g), ch(c.b)))
    }
}

/// Maps intended RGB pixels to the colours one `ColorMode` can show.
public struct Quantizer: Sendable {
    public let mode: ColorMode
    /// Ordered dithering in the palette modes (stable from frame to frame); off means nearest colour.
    public let dither: Bool

    public init(mode: ColorMode, dither: Bool) { self.mode = mode; self.dither = dither }

    @inline(__always) public func color(_ c: RGB, x: Int, y: Int) -> TermColor {
        switch mode {
        case .truecolor: return .rgb(c)
        case .palette256: return .indexed(dither ? Palette.dithered256(c, x: x, y: y) : Palette.nearest256(c))
        case .palette16: return .indexed(dither ? Palette.dithered16(c, x: x, y: y) : Palette.nearest16(c))
        case .monochrome:
            let luma = (77 * Int(c.r) + 150 * Int(c.g) + 29 * Int(c.b)) >> 8
            let threshold = dither ? (Palette.bayer4[(y & 3) << 2 | (x & 3)] * 16 + 8) : 128
            return luma >= threshold ? .defaultForeground : .defaultBackground
        }
    }
}
