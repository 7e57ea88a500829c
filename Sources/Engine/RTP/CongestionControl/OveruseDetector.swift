/// What the delay trend says about the path (gcc-02 §5.4).
public enum BandwidthUsage: String, Sendable, Codable {
    case normal, overusing, underusing
}

/// Compares the delay trend with an adaptive threshold (gcc-02 §5.4; docs/congestion-control.md). Overuse is
/// signalled only when the trend stays above the threshold for `overuseTime` over at least two groups and is not
/// falling; the threshold follows the trend's magnitude slowly, so that a flow competing with loss-based TCP
/// traffic (whose queue delay never goes away) is not starved by a fixed threshold.
struct OveruseDetector: Sendable {
    /// Milliseconds of modified trend; gcc-02 starts at 12.5 and keeps it within [6, 600].
    static let initialThreshold = 12.5
    static let thresholdRange = 6.0...600.0
    /// gcc-02 §5.4: K_u = 0.01 and K_d = 0.00018 in its units; these are libwebrtc's for the trendline's units.
    static let upGain = 0.0087
    static let downGain = 0.039
    static let overuseTimeMs = 10.0
    /// A trend this far above the threshold is an outlier (a route change): the threshold does not chase it.
    static let maxThresholdStepMs = 15.0

    private(set) var threshold = initialThreshold
    private(set) var usage = BandwidthUsage.normal
    private var overuseMs: Double?
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastUpdateMs: Double?

    mutating func detect(trend: Double, sendDeltaMs: Double, nowMs: Double) -> BandwidthUsage {
        if trend > threshold {
            overuseMs = overuseMs.map { $0 + sendDeltaMs } ?? sendDeltaMs / 2
            overuseCount += 1
            if let t = overuseMs, t > Self.overuseTimeMs, overuseCount > 1, trend >= previousTrend {
                overuseMs = 0
                overuseCount = 0
                usage = .overusing
            }
        } else if trend < -threshold {
            overuseMs = nil
            overuseCount = 0
            usage = .underusing
        } else {
            overuseMs = nil
            overuseCount = 0
            usage = .normal
        }
        previousTrend = trend
        adaptThreshold(trend: trend, nowMs: nowMs)
        return usage
    }

    private mutating func adaptThreshold(trend: Double, nowMs: Double) {
        let last = lastUpdateMs ?? nowMs
        lastUpdateMs = nowMs
        let magnitude = abs(trend)
        guard magnitude <= threshold + Self.maxThresholdStepMs else { return }
        let gain = magnitude < threshold ? Self.downGain : Self.upGain
        let elapsed = min(max(nowMs - last, 0), 100)
        threshold = min(max(threshold + gain * (magnitude - threshold) * elapsed, Self.thresholdRange.lowerBound),
                        Self.thresholdRange.upperBound)
    }
}
