#if canImport(Glibc)
import Glibc
#endif

/// Measurements a receiver makes on audio: how loud it is (for the speaking indicator and the
/// meters) and which frequency dominates (how the tests prove a tone crossed the call intact).
public enum AudioAnalysis {
    /// RMS level as a fraction of full scale, 0...1 (a full-scale sine is about 0.707).
    public static func rmsLevel(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for s in samples { let v = Double(s); sum += v * v }
        return (sum / Double(samples.count)).squareRoot() / 32_768
    }

    /// Level in dBFS (full-scale square wave = 0 dB); silence is -120.
    public static func dbfs(_ samples: [Int16]) -> Double {
        let rms = rmsLevel(samples)
        return rms > 1e-6 ? 20 * log10(rms) : -120
    }

    /// The strongest frequency between `low` and `high` Hz, or nil for (near) silence.
    ///
    /// Two Goertzel scans over Hann-windowed samples. Why not one grid over the whole window: over N samples a tone's
    /// main lobe is only about 2·rate/N wide (±4 Hz for half a second), so a coarse grid steps over it and lands on
    /// sidelobes, where any codec noise wins (a 550 Hz tone read as 299 or 699 Hz). So the coarse scan (every 20 Hz)
    /// averages the power of 50 ms segments (Welch), whose main lobe (±40 Hz to its nulls) no grid point misses and
    /// which one concealed or faded frame cannot sway; the fine scan (every 1 Hz, ±15 Hz around the coarse peak)
    /// then uses every sample for precision. About 5 M multiply-adds for half a second of audio, run eight frequencies
    /// at a time: one Goertzel step waits on the previous one, so a single frequency leaves the core idle most of the
    /// time, and a report analyses every participant's audio (the scalar loop was a third of a bot's CPU).
    public static func dominantFrequency(_ samples: [Int16], sampleRate: Int = AudioFrame.sampleRate,
                                         low: Double = 60, high: Double = 4_000) -> Double? {
        guard samples.count >= 256, rmsLevel(samples) > 0.001 else { return nil }
        let segment = min(samples.count, sampleRate / 20)
        let segmentWindow = hann(segment)
        var segments: [[Double]] = []
        var start = samples.count - segment
        while start >= 0 {
            segments.append(zip(samples[start..<(start + segment)], segmentWindow).map { Double($0) * $1 })
            start -= segment
        }
        var coarse: [Double] = []
        var f = low
        while f <= high { coarse.append(f); f += 20 }
        var coarsePower = [Double](repeating: 0, count: coarse.count)
        for x in segments {
            for (i, p) in goertzelPowers(x, coarse, sampleRate: sampleRate).enumerated() { coarsePower[i] += p }
        }
        var best = low, bestPower = -1.0
        for (i, p) in coarsePower.enumerated() where p > bestPower { bestPower = p; best = coarse[i] }
        let full = zip(samples, hann(samples.count)).map { Double($0) * $1 }
        var fine: [Double] = []
        var g = max(low, best - 15)
        let end = min(high, best + 15)
        while g <= end { fine.append(g); g += 1 }
        var fineBest = best, fineBestPower = -1.0
        for (i, p) in goertzelPowers(full, fine, sampleRate: sampleRate).enumerated() where p > fineBestPower {
            fineBestPower = p
            fineBest = fine[i]
        }
        return fineBest
    }

    /// The Hann window of `n` points; the two a report uses (a 50 ms segment and half a second at 48 kHz) are
    /// computed once, not 26,400 cosines per participant per report.
    static func hann(_ n: Int) -> [Double] {
        if n == standardWindows.segment.count { return standardWindows.segment }
        if n == standardWindows.whole.count { return standardWindows.whole }
        return computeHann(n)
    }

    private static let standardWindows = (segment: computeHann(AudioFrame.sampleRate / 20),
                                          whole: computeHann(AudioFrame.sampleRate / 2))

    private static func computeHann(_ n: Int) -> [Double] {
        (0..<n).map { i in 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1)) }
    }

    /// The Goertzel power of `x` at each of `frequencies`, eight at a time (each lane computes exactly what the
    /// scalar recurrence computes, so results do not depend on how frequencies are grouped).
    static func goertzelPowers(_ x: [Double], _ frequencies: [Double], sampleRate: Int) -> [Double] {
        var powers: [Double] = []
        powers.reserveCapacity(frequencies.count)
        var first = 0
        while first < frequencies.count {
            var coeff = SIMD8<Double>(repeating: 0)
            let lanes = min(8, frequencies.count - first)
            for lane in 0..<lanes { coeff[lane] = 2 * cos(2 * Double.pi * frequencies[first + lane] / Double(sampleRate)) }
            var s1 = SIMD8<Double>(repeating: 0), s2 = SIMD8<Double>(repeating: 0)
            x.withUnsafeBufferPointer { values in
                for v in values {
                    let s0 = SIMD8(repeating: v) + coeff * s1 - s2
                    s2 = s1
                    s1 = s0
                }
            }
            let p = s1 * s1 + s2 * s2 - coeff * s1 * s2
            for lane in 0..<lanes { powers.append(p[lane]) }
            first += 8
        }
        return powers
    }
}
