#if canImport(Glibc)
import Glibc
#endif

/// A small source-filter voice, one sample at a time: a glottal pulse train (Rosenberg's flow pulse, differentiated as
/// the lips radiate it) through three formant resonators in cascade (Klatt's), scaled by a gain measured per vowel
/// when the voice is made, so every vowel comes out at an RMS of about 1 (the cascade's own gain differs by vowel by
/// several times; a level follower instead lags each change of vowel by tens of milliseconds, audibly and on the
/// meters). Pitch, formants and gain glide towards their targets (tens of milliseconds), so nothing steps and the wave
/// has no clicks. Why not a tone: a tone reads as a test signal, a voice as a person talking.
struct Voice: Sendable {
    /// Formant frequencies (F1, F2, F3 in Hz) of the vowels a, e, i, o, u of an adult male voice; higher voices use
    /// them scaled by `formantScale`.
    static let vowels: [(Double, Double, Double)] = [
        (730, 1090, 2440), (530, 1840, 2480), (300, 2200, 2950), (570, 840, 2410), (330, 900, 2250),
    ]
    static let bandwidths = (80.0, 110.0, 160.0)
    static let rate = Double(AudioFrame.sampleRate)

    private(set) var f0: Double
    private var targetF0: Double
    private var formants: (Double, Double, Double)
    private var targetFormants: (Double, Double, Double)
    private let formantScale: Double
    private var phase = 0.0
    private var lastFlow = 0.0
    private var r1 = Resonator(), r2 = Resonator(), r3 = Resonator()
    private var untilRetune = 0
    /// 1 / the RMS of each vowel at this pitch, unscaled; and the gain now, gliding to the aimed vowel's.
    private var vowelGains = [Double](repeating: 1, count: Self.vowels.count)
    private var gain = 1.0, targetGain = 1.0

    init(pitchHz: Double) {
        let pitch = pitchHz.isFinite ? min(max(pitchHz, 50), 400) : 150
        f0 = pitch; targetF0 = pitch
        formantScale = pitch >= 170 ? 1.15 : 1
        formants = Self.formants(vowel: 0, scale: formantScale)
        targetFormants = formants
        retune()
        var gains: [Double] = []
        for vowel in 0..<Self.vowels.count {
            var probe = self
            probe.formants = Self.formants(vowel: vowel, scale: formantScale)
            probe.targetFormants = probe.formants
            probe.retune()
            for _ in 0..<2_400 { _ = probe.next() }
            var sum = 0.0
            for _ in 0..<4_800 { let x = probe.next(); sum += x * x }
            gains.append(1 / max(sum / 4_800, 1e-18).squareRoot())
        }
        vowelGains = gains
        gain = gains[0]; targetGain = gain
        // Settle the resonators, so the first syllable starts from a running voice.
        for _ in 0..<2_400 { _ = next() }
    }

    /// Aim at `vowel` (0..<5) at `pitchHz`; the voice glides there.
    mutating func aim(vowel: Int, pitchHz: Double) {
        let v = min(max(vowel, 0), Self.vowels.count - 1)
        targetFormants = Self.formants(vowel: v, scale: formantScale)
        targetGain = vowelGains[v]
        if pitchHz.isFinite { targetF0 = min(max(pitchHz, 50), 400) }
    }

    /// The next sample, at an RMS of about 1.
    mutating func next() -> Double {
        f0 += (targetF0 - f0) * 0.0005                 // about 40 ms
        phase += f0 / Self.rate
        if phase >= 1 { phase -= 1 }
        let flow = Self.glottalFlow(phase)
        let excitation = flow - lastFlow
        lastFlow = flow
        if untilRetune <= 0 {
            let k = 0.03                                 // per millisecond: about 30 ms
            formants.0 += (targetFormants.0 - formants.0) * k
            formants.1 += (targetFormants.1 - formants.1) * k
            formants.2 += (targetFormants.2 - formants.2) * k
            gain += (targetGain - gain) * k
            retune()
        }
        untilRetune -= 1
        return gain * r3.step(r2.step(r1.step(excitation)))
    }

    private mutating func retune() {
        r1.tune(formants.0, bandwidth: Self.bandwidths.0)
        r2.tune(formants.1, bandwidth: Self.bandwidths.1)
        r3.tune(formants.2, bandwidth: Self.bandwidths.2)
        untilRetune = 48
    }

    static func formants(vowel: Int, scale: Double) -> (Double, Double, Double) {
        let f = vowels[min(max(vowel, 0), vowels.count - 1)]
        return (f.0 * scale, f.1 * scale, f.2 * scale)
    }

    /// Rosenberg's glottal flow over one period (0 ≤ phase < 1): opening over 40 %, closing over 16 %, then closed.
    static func glottalFlow(_ phase: Double) -> Double {
        if phase < 0.4 { return 0.5 * (1 - cos(Double.pi * phase / 0.4)) }
        if phase < 0.56 { return cos(Double.pi / 2 * (phase - 0.4) / 0.16) }
        return 0
    }
}

/// A two-pole resonator with unity gain at 0 Hz (Klatt 1980): y = a·x + b·y₁ + c·y₂.
struct Resonator: Sendable {
    private var a = 1.0, b = 0.0, c = 0.0
    private var y1 = 0.0, y2 = 0.0

    mutating func tune(_ frequency: Double, bandwidth: Double) {
        let r = exp(-Double.pi * bandwidth / Voice.rate)
        c = -r * r
        b = 2 * r * cos(2 * Double.pi * frequency / Voice.rate)
        a = 1 - b - c
    }

    mutating func step(_ x: Double) -> Double {
        let y = a * x + b * y1 + c * y2
        y2 = y1
        y1 = y
        return y
    }
}
