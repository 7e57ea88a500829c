#if canImport(Glibc)
import Glibc
#endif
import EngineTransport

/// A synthetic camera showing the wall-clock time (HH:MM:SS) in large digits on a dark
/// background, with a seconds bar filling along the bottom: a calm picture that changes once a
/// second, the cheap end of what a terminal has to redraw.
public final class ClockSource: VideoSource {
    public let width: Int
    public let height: Int
    public let frameRate: Double
    private let clock: @Sendable () -> Double

    public init(width: Int = 320, height: Int = 240, frameRate: Double = 15,
                clock: @escaping @Sendable () -> Double) throws(EngineError) {
        guard width >= 64, height >= 48, width % 2 == 0, height % 2 == 0 else {
            throw .invalidArgument("clock needs an even size of at least 64x48, not \(width)x\(height)")
        }
        self.width = width; self.height = height; self.frameRate = frameRate; self.clock = clock
    }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        let now = clock()
        var t = time_t(now.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let text = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        var canvas = I420Canvas(width: width, height: height)
        canvas.fill(x: 0, y: 0, w: width, h: height, yuv: (28, 140, 120))
        // Eight glyphs take about 5.25 digit heights of width (six digits of 0.75, two colons of
        // 0.375): keep them inside the frame with a margin.
        let digitHeight = min(height / 3, width * 17 / 100)
        // Six digits (width h/2 + 2t each) and two colons (3t each), centred.
        let t8 = max(1, digitHeight / 8)
        let textWidth = 6 * (digitHeight / 2 + 2 * t8) + 2 * 3 * t8
        SevenSegment.draw(text, on: &canvas, x: max(0, (width - textWidth) / 2), y: (height - digitHeight) / 2,
                          digitHeight: digitHeight, yuv: (200, 110, 150))
        let fraction = now - now.rounded(.down)
        canvas.fill(x: 0, y: height - height / 16, w: Int(Double(width) * fraction), h: height / 16, yuv: (120, 170, 90))
        return try canvas.frame(timestamp: now)
    }
}
