/// The delay trend: the slope of the accumulated, smoothed delay variation over the last `window` groups, by least
/// squares against arrival time (the trendline filter libwebrtc runs in place of gcc-02's Kalman filter;
/// docs/congestion-control.md). A positive slope is a queue building up at the bottleneck, long before it drops.
struct TrendlineFilter: Sendable {
    /// Groups in the regression: about half a second of video at 30 frames a second.
    static let window = 20
    /// Exponential smoothing of the accumulated delay (weight of the old value).
    static let smoothing = 0.9
    /// The slope is scaled by the number of samples (up to `maxSamplesScale`) and this gain, so that it compares
    /// with a threshold in milliseconds the way libwebrtc's does.
    static let gain = 4.0
    static let maxSamplesScale = 60

    private var accumulated = 0.0
    private var smoothed = 0.0
    private var samples: [(x: Double, y: Double)] = []
    private var firstAtMs: Double?
    private(set) var deltas = 0

    /// Adds one group's delay variation; returns the modified trend once the window is full.
    mutating func update(_ delta: PacketGroups.Delta) -> Double? {
        deltas = min(deltas + 1, Self.maxSamplesScale)
        let first = firstAtMs ?? delta.atMs
        firstAtMs = first
        accumulated += delta.variationMs
        smoothed = Self.smoothing * smoothed + (1 - Self.smoothing) * accumulated
        samples.append((delta.atMs - first, smoothed))
        if samples.count > Self.window { samples.removeFirst() }
        guard samples.count == Self.window, let slope = Self.slope(samples) else { return nil }
        return Double(deltas) * slope * Self.gain
    }

    static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n, meanY = points.reduce(0) { $0 + $1.y } / n
        var numerator = 0.0, denominator = 0.0
        for p in points {
            numerator += (p.x - meanX) * (p.y - meanY)
            denominator += (p.x - meanX) * (p.x - meanX)
        }
        return denominator > 0 ? numerator / denominator : nil
    }
}
