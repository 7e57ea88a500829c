import EngineTransport
/// A video source under a light that sweeps across the picture and back, so every part of the
/// picture visibly changes from one frame to the next, as a person on camera does (a bare test
/// card changes only in its counter). The demo's participants send it; it is not decodable as a card.
public final class SweepingLightSource: VideoSource {
    private let inner: VideoSource
    private let clock: @Sendable () -> Double
    public var frameRate: Double { inner.frameRate }

    public init(_ inner: VideoSource, clock: @escaping @Sendable () -> Double) {
        self.inner = inner
        self.clock = clock
    }

    public func nextFrame() throws(EngineError) -> VideoFrame? {
        try inner.nextFrame().map { Self.light($0, at: clock()) }
    }

    /// The frame lit at time `t` (seconds): a diagonal ramp of up to +70 luma moving with a 1.6 s period.
    public static func light(_ frame: VideoFrame, at t: Double) -> VideoFrame {
        var f = frame
        let period = 1.6
        let span = Double(f.width + f.height)
        for row in 0..<f.height {
            for col in 0..<f.width {
                let phase = (t / period + Double(col + row) / span).truncatingRemainder(dividingBy: 1)
                let lift = Int(70 * (phase < 0.5 ? phase * 2 : 2 - phase * 2))
                let i = row * f.yStride + col
                f.y[i] = UInt8(min(235, Int(f.y[i]) + lift))
            }
        }
        return f
    }
}
