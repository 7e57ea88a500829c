/// The frames of one remote participant waiting for the playback mixer: filled every 20 ms by the call's event thread
/// (the jitter buffer's playout clock), emptied every 20 ms by the playback thread (the device's clock). The two clocks
/// drift, and a stalled playback thread must not turn into ever-growing latency, so the queue is bounded: beyond
/// `capacity` frames the oldest are dropped. An empty queue is an underrun: the mixer plays silence for that peer and
/// waits for `prefill` frames before taking from it again, so a queue running near empty does not flap frame by frame.
/// After a burst (the event thread stalled, then caught up) the queue would otherwise stay full, 120 ms late, for the
/// rest of the call: when it has held more than `prefill + 1` frames at every pop for half a second, one frame is
/// dropped, so the delay comes back down to about `prefill` frames within seconds.
public struct PlaybackQueue: Sendable {
    /// 6 × 20 ms = 120 ms, the jitter buffer's own maximum delay: more would only add latency.
    public static let defaultCapacity = 6
    public static let defaultPrefill = 2
    /// Pops in a row above the target depth before one frame is dropped (25 × 20 ms = 0.5 s).
    public static let drainAfter = 25

    public let capacity: Int
    public let prefill: Int
    private var frames: [AudioFrame] = []
    private var primed = false
    private var popsAboveTarget = 0
    /// Frames dropped because the queue was full (the oldest go first).
    public private(set) var dropped = 0
    /// Times the mixer came and the queue, once playing, was empty.
    public private(set) var underruns = 0

    public init(capacity: Int = PlaybackQueue.defaultCapacity, prefill: Int = PlaybackQueue.defaultPrefill) {
        precondition(capacity >= 1 && prefill >= 1 && prefill <= capacity, "0 < prefill <= capacity")
        self.capacity = capacity
        self.prefill = prefill
    }

    public var count: Int { frames.count }

    public mutating func push(_ frame: AudioFrame) {
        frames.append(frame)
        if frames.count > capacity {
            dropped += frames.count - capacity
            frames.removeFirst(frames.count - capacity)
        }
    }

    /// The next frame to play, or nil (play silence for this peer).
    public mutating func pop() -> AudioFrame? {
        if !primed {
            guard frames.count >= prefill else { return nil }
            primed = true
        }
        guard !frames.isEmpty else {
            primed = false
            underruns += 1
            return nil
        }
        popsAboveTarget = frames.count > prefill + 1 ? popsAboveTarget + 1 : 0
        if popsAboveTarget >= Self.drainAfter {
            popsAboveTarget = 0
            frames.removeFirst()
            dropped += 1
        }
        return frames.removeFirst()
    }
}
