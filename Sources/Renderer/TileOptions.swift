/// How a tile trades bytes for fidelity. Distances are `RGB.distance` units (8-bit levels).
///
/// The defaults were chosen with `conftui-bench renderer` on the benchmark clips at 128x48 cells:
/// a tolerance of 7 keeps high motion near 42 dB; settling at 2 after 4 frames of a 1/8-weight
/// temporal average keeps webcam noise from repainting static areas while still reaching 38.5 dB;
/// reusing a colour within 2 of the one already set (only where the picture moves) saves SGR bytes.
public struct TileOptions: Sendable {
    public var colorMode: ColorMode
    /// Ordered dithering in the palette modes (see `Palette.dithered256`). On by default: on the
    /// talking-head clip it lowers per-pixel PSNR (20.1 against 23.8 dB for the nearest colour)
    /// but raises it at cell scale (2x2-pixel means: 31.5 against 24.4 dB), which is what a
    /// viewer sees; skin and walls keep their hue instead of snapping to orange and pink.
    public var dither: Bool
    /// A pixel is repainted at once when the source differs from what the terminal shows by more.
    public var tolerance: Int
    /// A smaller difference is repainted (with the pixel's temporal average, which sensor noise
    /// does not move) once it has lasted `settleFrames` frames in a row.
    public var settleTolerance: Int
    public var settleFrames: Int
    /// In truecolor, a colour this close to the SGR colour already set is drawn with that colour.
    public var reuseTolerance: Int
    /// Seconds to repaint the whole tile once, row by row, whatever the screen model says
    /// (repairs drift from anything written behind the renderer's back); nil turns it off.
    public var refreshPeriod: Double?
    /// The most the byte budget may multiply the tolerances by when the link is saturated.
    public var maxToleranceScale: Double

    public init(colorMode: ColorMode = .truecolor, dither: Bool = true, tolerance: Int = 7,
                settleTolerance: Int = 2, settleFrames: Int = 4, reuseTolerance: Int = 2,
                refreshPeriod: Double? = 30, maxToleranceScale: Double = 4) {
        self.colorMode = colorMode; self.dither = dither; self.tolerance = tolerance
        self.settleTolerance = settleTolerance; self.settleFrames = settleFrames
        self.reuseTolerance = reuseTolerance; self.refreshPeriod = refreshPeriod
        self.maxToleranceScale = maxToleranceScale
    }
}
