/// Paces a loop that moves one 20 ms frame per turn (capture+encode, or mix+play).
///
/// A real ALSA device is its own clock: a read that waits for 20 ms of audio, or a write that waits for room in the
/// buffer, paces the loop, and the pacer follows it (the device's crystal and the monotonic clock drift apart, and the
/// device must win or its buffer over- or underruns). A tone, the null sink and ALSA's `null` PCM return at once
/// (measured: 50 reads or writes of `null` take well under a millisecond), so for them the monotonic clock paces the
/// loop, `lead` seconds ahead at most (room for a playback device's buffer to fill before it starts blocking).
public struct FramePacer: Sendable {
    public let interval: Double
    public let lead: Double
    /// An I/O call that took this long waited for the device: the device is pacing us.
    public static let blockingThreshold = 0.005
    /// Further behind than this, the loop starts again from now rather than bursting to catch up.
    public static let maxLag = 0.2
    /// The clock time at which the last frame was due (nil before the first).
    private var due: Double?

    public init(interval: Double = AudioFrame.duration, lead: Double = 0) {
        self.interval = interval
        self.lead = lead
    }

    /// Call after each frame's I/O, which waited `blocked` seconds and ended at `now` (monotonic seconds).
    /// Returns how long to sleep before the next frame.
    public mutating func pause(blocked: Double, now: Double) -> Double {
        if blocked >= Self.blockingThreshold {
            due = now
            return 0
        }
        let next = (due ?? now) + interval
        if next < now - Self.maxLag {
            due = now
            return 0
        }
        due = next
        return max(0, next - lead - now)
    }
}
