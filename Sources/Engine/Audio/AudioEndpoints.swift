/// Where a participant's microphone audio comes from, with the fallback said out loud: SSH users
/// usually have no sound card, and must still send something a peer can hear and measure.
public enum AudioInput {
    case device(AlsaPCM)
    case tone(ToneSource)
    /// A synthetic talker (the demo's participants): `SpeechSource`.
    case speech(SpeechSource)
    case silence

    /// Opens the capture device, or falls back to `fallbackTone` Hz (0: silence) when it cannot.
    /// `note` says what was chosen and why, for the log and the status bar.
    public static func open(device: String?, fallbackTone: Double) -> (input: AudioInput, note: String) {
        let fallback: AudioInput = fallbackTone > 0 ? .tone(ToneSource(frequency: fallbackTone)) : .silence
        let fallbackName = fallbackTone > 0 ? "a \(Int(fallbackTone)) Hz tone" : "silence"
        guard let device else { return (fallback, "microphone: \(fallbackName)") }
        do {
            return (.device(try AlsaPCM(device: device, direction: .capture)), "microphone: ALSA \(device)")
        } catch {
            return (fallback, "microphone: \(fallbackName) (cannot open ALSA \(device): \(error))")
        }
    }

    /// The next 20 ms. A device paces the caller; a tone, speech or silence returns at once, so the
    /// caller's own 20 ms clock paces those.
    public mutating func nextFrame() -> AudioFrame {
        switch self {
        case .device(let pcm):
            if let frame = try? pcm.read() { return frame }
            self = .silence   // the device went away mid-call: keep sending, say nothing loud
            return .silence
        case .tone(var tone):
            let frame = tone.nextFrame()
            self = .tone(tone)
            return frame
        case .speech(var speech):
            let frame = speech.nextFrame()
            self = .speech(speech)
            return frame
        case .silence:
            return .silence
        }
    }
}

/// Where mixed remote audio goes: a playback device, or a null sink that only measures levels
/// (no sound card) so meters and the speaking indicator still work.
public enum AudioOutput {
    case device(AlsaPCM)
    case null

    public static func open(device: String?) -> (output: AudioOutput, note: String) {
        guard let device else { return (.null, "speaker: none (levels measured only)") }
        do {
            return (.device(try AlsaPCM(device: device, direction: .playback)), "speaker: ALSA \(device)")
        } catch {
            return (.null, "speaker: none (cannot open ALSA \(device): \(error)); levels measured only")
        }
    }

    /// Plays a frame (a device paces the caller; the null sink does not) and returns its level.
    @discardableResult
    public mutating func play(_ frame: AudioFrame) -> Double {
        if case .device(let pcm) = self, (try? pcm.write(frame)) == nil { self = .null }
        return AudioAnalysis.rmsLevel(frame.samples)
    }
}
