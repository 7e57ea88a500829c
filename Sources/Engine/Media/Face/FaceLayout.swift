/// A rectangle as fractions of a frame's width and height (0...1), so it means the same at any picture size: in the
/// 320x240 frame sent, in the decoded picture, and in the terminal tile that shows it.
public struct FrameBox: Sendable, Equatable {
    public let x: Double, y: Double, w: Double, h: Double

    public init(x: Double, y: Double, w: Double, h: Double) {
        self.x = x; self.y = y; self.w = w; self.h = h
    }

    /// The box in pixels of a `width` x `height` frame, widened to even edges (an I420 chroma sample covers 2x2
    /// pixels, so what is drawn inside the box never touches a pixel outside it).
    public func pixels(width: Int, height: Int) -> (x: Int, y: Int, w: Int, h: Int) {
        // Fractions are clamped to 0...1 (and a NaN is 0) before any arithmetic; the 1e-6 keeps 2/3 of 240 at 160,
        // not 159.99999999999997 rounded down.
        func scaled(_ f: Double, _ size: Int) -> Double { min(max(f.isFinite ? f : 0, 0), 1) * Double(max(size, 0)) }
        func lower(_ f: Double, _ size: Int) -> Int { min(Int((scaled(f, size) + 1e-6).rounded(.down)) & ~1, size) }
        func upper(_ f: Double, _ size: Int) -> Int { min((Int((scaled(f, size) - 1e-6).rounded(.up)) + 1) & ~1, size) }
        let x0 = lower(x, width), y0 = lower(y, height)
        let x1 = max(x0, upper(x + w, width)), y1 = max(y0, upper(y + h, height))
        return (x0, y0, x1 - x0, y1 - y0)
    }
}

/// Where the parts of a `FaceSource` picture are. The face is drawn on a 320x240 design grid scaled to the frame;
/// the boxes are fractions, so a test can find the mouth in a decoded picture or in a terminal capture of the tile.
///
/// | part | x | y | w | h | at 320x240 |
/// |---|---|---|---|---|---|
/// | eyes (both) | 0.375 | 0.225 | 0.25 | 0.1 | 120..<200, 54..<78 |
/// | mouth | 0.4 | 0.4 | 0.2 | 0.15 | 128..<192, 96..<132 |
/// | name band | 0 | 2/3 | 1 | 1/3 | 0..<320, 160..<240 |
///
/// Between frames only the eye box (blinks) and the mouth box (speech) ever change.
extension FaceSource {
    public static let eyeBox = FrameBox(x: 0.375, y: 0.225, w: 0.25, h: 0.1)
    public static let mouthBox = FrameBox(x: 0.4, y: 0.4, w: 0.2, h: 0.15)
    /// The dark band at the bottom holding the name in white.
    public static let nameBand = FrameBox(x: 0, y: 2.0 / 3.0, w: 1, h: 1.0 / 3.0)

    /// The name as drawn: upper case, at most 12 characters, each glyph pixel `scaleX` x `scaleY` frame pixels, top-left at (x, y).
    ///
    /// Sized for the terminal: a 320x240 picture in a tile 40 cells wide is about 40x30 to 40x36 half-block pixels,
    /// 8 frame pixels per tile pixel across and 6.7 to 8 down, so glyph pixels of 10x10 (a stroke of 1.25 tile
    /// pixels or more) survive the box downscale. Five letters fit at that size; longer names get narrower letters.
    static func nameLayout(_ name: String, width: Int, height: Int) -> (text: String, x: Int, y: Int, scaleX: Int, scaleY: Int) {
        let text = String(name.uppercased().prefix(12))
        let band = nameBand.pixels(width: width, height: height)
        let units = max(1, PixelFont.width(of: text, scale: 1))
        let scaleY = max(1, band.h / (PixelFont.glyphHeight + 1))
        let margin = max(1, width / 64)
        let scaleX = max(1, min((width + 31) / 32, (width - 2 * margin) / units))
        let x = max(0, (width - units * scaleX) / 2)
        let y = band.y + max(0, (band.h - PixelFont.glyphHeight * scaleY) / 2)
        return (text, x, y, scaleX, scaleY)
    }
}

/// The 320x240 design grid scaled to a frame: every shape of the face is placed in design pixels.
struct FaceGrid {
    let sx: Double, sy: Double

    init(width: Int, height: Int) {
        sx = Double(width) / 320
        sy = Double(height) / 240
    }

    /// An ellipse of the design grid in frame pixels.
    func ellipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Ellipse {
        Ellipse(cx: cx * sx, cy: cy * sy, rx: rx * sx, ry: ry * sy)
    }

    /// A rectangle of the design grid in frame pixels (edges rounded).
    func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> PixelRect {
        let a = Int((x0 * sx).rounded()), b = Int((y0 * sy).rounded())
        return PixelRect(x0: a, y0: b, x1: max(a, Int((x1 * sx).rounded())), y1: max(b, Int((y1 * sy).rounded())))
    }
}

struct Ellipse {
    let cx: Double, cy: Double, rx: Double, ry: Double
}

/// Pixels x0..<x1, y0..<y1.
struct PixelRect: Equatable {
    let x0: Int, y0: Int, x1: Int, y1: Int

    static func whole(_ width: Int, _ height: Int) -> PixelRect { PixelRect(x0: 0, y0: 0, x1: width, y1: height) }

    init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }

    init(_ box: (x: Int, y: Int, w: Int, h: Int)) {
        self.init(x0: box.x, y0: box.y, x1: box.x + box.w, y1: box.y + box.h)
    }

    func intersection(_ o: PixelRect) -> PixelRect {
        let a = max(x0, o.x0), b = max(y0, o.y0)
        return PixelRect(x0: a, y0: b, x1: max(a, min(x1, o.x1)), y1: max(b, min(y1, o.y1)))
    }
}
