import EngineTransport
/// A synthetic camera: 75% colour bars (ITU-R BT.601 studio levels, as SMPTE bars are drawn in
/// Y'CbCr) with a white square bouncing across them and a grey ramp at the bottom, so a preview
/// shows colour, motion and gradation without a camera.
public final class ColorBarsSource: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Double
    /// nil: endless.
    public let frameLimit: Int?
    private var index = 0

    // White, yellow, cyan, green, magenta, red, blue at 75%, as (Y, Cb, Cr) studio levels.
    private static let bars: [(UInt8, UInt8, UInt8)] = [
        (180, 128, 128), (162, 44, 142), (131, 156, 44), (112, 72, 58),
        (84, 184, 198), (65, 100, 212), (35, 212, 114),
    ]

    public init(width: Int = 320, height: Int = 240, frameRate: Double = 30, frameLimit: Int? = nil) throws(EngineError) {
        guard width >= 2, height >= 2, frameRate > 0 else { throw .invalidArgument("bars: \(width)x\(height) at \(frameRate) fps") }
        self.width = width; self.height = height; self.frameRate = frameRate; self.frameLimit = frameLimit
    }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        if let limit = frameLimit, index >= limit { return nil }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var y = [UInt8](repeating: 16, count: width * height)
        var u = [UInt8](repeating: 128, count: cw * ch)
        var v = [UInt8](repeating: 128, count: cw * ch)
        let barsBottom = height * 3 / 4
        for row in 0..<height {
            for col in 0..<width {
                let value: UInt8
                if row < barsBottom { value = Self.bars[col * 7 / width].0 }
                else { value = UInt8(16 + col * 219 / max(1, width - 1)) }
                y[row * width + col] = value
            }
        }
        for row in 0..<ch where row * 2 < barsBottom {
            for col in 0..<cw {
                let bar = Self.bars[min(6, col * 2 * 7 / width)]
                u[row * cw + col] = bar.1; v[row * cw + col] = bar.2
            }
        }
        // The moving element: a white square bouncing horizontally, crossing in about a second.
        let side = max(2, height / 6)
        let span = max(1, width - side)
        let step = max(1, Int(Double(span) / frameRate))
        let phase = (index * step) % (2 * span)
        let x0 = phase < span ? phase : 2 * span - phase
        let y0 = (barsBottom - side) / 2
        for row in y0..<min(height, y0 + side) {
            for col in x0..<min(width, x0 + side) { y[row * width + col] = 235 }
        }
        for row in (y0 / 2)..<min(ch, (y0 + side + 1) / 2) {
            for col in (x0 / 2)..<min(cw, (x0 + side + 1) / 2) { u[row * cw + col] = 128; v[row * cw + col] = 128 }
        }
        defer { index += 1 }
        return try VideoFrame(width: width, height: height, y: y, u: u, v: v, timestamp: Double(index) / frameRate)
    }
}
