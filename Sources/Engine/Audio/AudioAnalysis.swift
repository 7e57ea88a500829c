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
    /// A coarse Goertzel scan every 20 Hz finds the peak, a fine one around it every 1 Hz refines it:
    /// cheap enough to run on every 100 ms window, and exact enough to tell 440 Hz from 660 Hz.
    public static func dominantFrequency(_ samples: [Int16], sampleRate: Int = AudioFrame.sampleRate,
                                         low: Double = 60, high: Double = 4_000) -> Double? {
        guard samples.count >= 256, rmsLevel(samples) > 0.001 else { return nil }
        let x = samples.map { Double($0) }
        func power(_ f: Double) -> Double {
            let w = 2 * Double.pi * f / Double(sampleRate)
            let coeff = 2 * cos(w)
            var s1 = 0.0, s2 = 0.0
            for v in x {
                let s0 = v + coeff * s1 - s2
                s2 = s1
                s1 = s0
            }
            return s1 * s1 + s2 * s2 - coeff * s1 * s2
        }
        var best = low, bestPower = -1.0
        var f = low
        while f <= high {
            let p = power(f)
            if p > bestPower { bestPower = p; best = f }
            f += 20
        }
        var fine = max(low, best - 20)
        let end = min(high, best + 20)
        while fine <= end {
            let p = power(fine)
            if p > bestPower { bestPower = p; best = fine }
            fine += 1
        }
        return best
    }
}
