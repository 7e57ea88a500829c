/// Paces a loop that moves one 20 ms frame per turn (capture+encode, or mix+play).
///
/// The monotonic clock sets a schedule of one frame every `interval`; the loop sleeps only when it is more than `lead`
/// ahead of that schedule. A real ALSA device blocks in its read (until 20 ms of audio is there) or write (while its
/// buffer is full), so it paces the loop itself and the clock is only a ceiling: a playback device may fill its buffer
/// (`lead`) first. A tone, the null sink and ALSA's `null` PCM return at once (measured: 50 reads or writes of `null`
/// take well under a millisecond), so for them the clock is the pace. Timing how long an I/O call took does not tell
/// the two apart on a loaded machine (a preempted non-blocking write looks like a blocking one), so the pacer does not try.
/// Behind by more than `maxLag` (the thread was starved), the schedule starts again from now instead of bursting.
public struct FramePacer: Sendable {
    public let interval: Double
    public let lead: Double
    public static let maxLag = 0.2
    /// The clock time at which the last frame was due (nil before the first).
    private var due: Double?

    public init(interval: Double = AudioFrame.duration, lead: Double = 0) {
        self.interval = interval
        self.lead = lead
    }

    /// Call after each frame's I/O, at `now` (monotonic seconds). Returns how long to sleep before the next frame.
    public mutating func pause(now: Double) -> Double {
        let next = (due ?? now) + interval
        if next < now - Self.maxLag {
            due = now
            return 0
        }
        due = next
        return max(0, next - lead - now)
    }
}
