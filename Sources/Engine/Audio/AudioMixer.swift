/// Sums the latest frame of every remote participant for the playback device, and measures each
/// one's level on the way (the speaking indicator). The caller's own captured audio is never an
/// input: not playing back your own microphone is the first defence against echo.
public struct AudioMixer: Sendable {
    public init() {}

    /// Mixes `frames` with saturation (no wrap-around clicks when several people talk at once).
    public func mix(_ frames: [AudioFrame]) -> AudioFrame {
        guard let first = frames.first else { return .silence }
        if frames.count == 1 { return first }
        var acc = [Int32](repeating: 0, count: AudioFrame.samplesPerFrame)
        for f in frames {
            for i in 0..<acc.count { acc[i] &+= Int32(f.samples[i]) }
        }
        return AudioFrame(samples: acc.map { Int16(clamping: $0) })
    }
}
