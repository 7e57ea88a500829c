#if canImport(Glibc)
import Glibc
#endif

/// A synthetic talker as a microphone: what the demo's participants send. A `Voice` at the seat's pitch says the
/// syllables of a `SpeechScript` (its vowels, pitch accents and a slow intonation), shaped by the script's envelope,
/// with a little breath noise while voiced. Outside the syllables every sample is exactly 0, so Opus DTX skips the
/// pauses and other turns. The voice keeps its phase and filter state from frame to frame, so there are no clicks.
///
/// Levels: a vowel at full envelope has an RMS of `voiceLevel` (0.24 of full scale, well above the room's speaking
/// threshold, `Room.speakOn` = 0.08, for most of a syllable), and a soft limiter keeps every sample under `ceiling`.
public struct SpeechSource: Sendable {
    public let script: SpeechScript
    /// RMS, as a fraction of full scale, of a vowel at full envelope (before the limiter).
    public static let voiceLevel = 0.24
    /// No sample exceeds this fraction of full scale (a tanh soft limiter).
    public static let ceiling = 0.5
    private static let breathLevel = 0.02

    private let clock: @Sendable () -> Double
    private var voice: Voice
    /// The wall-clock time of the next sample to make (nil before the first frame).
    private var nextTime: Double?
    private var plan: (turn: Int, syllables: [SpeechScript.Syllable])?
    private var cursor = 0
    private var lastTime = -Double.infinity
    private var noise: UInt64

    /// - Parameter clock: wall-clock seconds, the time base of `script`.
    public init(script: SpeechScript, clock: @escaping @Sendable () -> Double) {
        self.script = script
        self.clock = clock
        voice = Voice(pitchHz: script.pitchHz)
        noise = SeededHash.bits(script.seat, 0xB1EA7) | 1
    }

    /// The next 20 ms as of now. Consecutive frames continue one another; when the caller falls more than 0.1 s
    /// behind the clock or runs ahead of it (a starved thread, a suspended process), the next frame starts at the
    /// clock again, so the sound stays on the script's time.
    public mutating func nextFrame() -> AudioFrame {
        let now = clock()
        if let t = nextTime, abs(t - now) <= 0.1 {} else { nextTime = now }
        let frame = frame(startingAt: nextTime ?? now)
        nextTime = (nextTime ?? now) + AudioFrame.duration
        return frame
    }

    /// The 20 ms starting at `t` (wall-clock seconds). Successive calls should move forward in time; the voice's
    /// state carries over from the previous call.
    public mutating func frame(startingAt t: Double) -> AudioFrame {
        guard t.isFinite else { return .silence }
        var samples = [Int16](repeating: 0, count: AudioFrame.samplesPerFrame)
        // A slow intonation (±3 % over 2.5 s) on top of the syllables' accents.
        let since = t - script.epoch
        let drift = 1 + 0.03 * sin(2 * Double.pi * 0.4 * (since.isFinite ? since.truncatingRemainder(dividingBy: 1e4) : 0))
        let peak = Self.ceiling * 32_767
        for i in 0..<samples.count {
            let now = t + Double(i) / Voice.rate
            guard let syllable = syllable(at: now) else { continue }
            // The voice runs through the pauses of its turn too, already on the next syllable's vowel, so a syllable
            // starts at its full level rather than while the level follower catches up with a new vowel.
            voice.aim(vowel: syllable.vowel, pitchHz: script.pitchHz * syllable.pitch * drift)
            let voiced = voice.next()
            let level = syllable.envelope(at: now)
            guard now >= syllable.start, level > 0 else { continue }
            let x = level * (Self.voiceLevel * voiced + Self.breathLevel * nextNoise())
            samples[i] = Int16((peak * tanh(x / Self.ceiling)).rounded())
        }
        return AudioFrame(samples: samples)
    }

    /// The syllable of the script's current turn being said at `t`, or the next one in a pause; nil in another seat's
    /// turn and after the turn's last syllable. From the turn's plan, made once per turn (not once per sample).
    private mutating func syllable(at t: Double) -> SpeechScript.Syllable? {
        guard let j = script.turn(at: t), j % script.seats == script.seat else { return nil }
        if plan?.turn != j || t < lastTime {
            if plan?.turn != j { plan = (j, script.syllables(inTurn: j)) }
            cursor = 0
        }
        lastTime = t
        guard let syllables = plan?.syllables else { return nil }
        while cursor < syllables.count, t >= syllables[cursor].end { cursor += 1 }
        return cursor < syllables.count ? syllables[cursor] : nil
    }

    /// White noise (xorshift), -1..<1: the breath's hiss.
    private mutating func nextNoise() -> Double {
        noise ^= noise << 13
        noise ^= noise >> 7
        noise ^= noise << 17
        return Double(noise >> 11) / Double(UInt64(1) << 52) - 1
    }
}
