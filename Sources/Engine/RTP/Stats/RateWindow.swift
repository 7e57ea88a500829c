import EngineTransport
/// Counts events and bytes over a sliding window (default 1 s), for frame rate and bitrate.
public struct RateWindow: Sendable {
    public let length: Duration
    /// Samples from `head` on are inside the window; `bytesInWindow` is their sum. Added per packet, so pruning
    /// moves an index instead of shifting the array, and the rate is read without summing.
    private var samples: [(time: TransportTime, bytes: Int)] = []
    private var head = 0
    private var bytesInWindow = 0

    public init(length: Duration = .seconds(1)) { self.length = length }

    public mutating func add(bytes: Int = 0, now: TransportTime) {
        samples.append((now, bytes))
        bytesInWindow += bytes
        prune(now: now)
    }

    private mutating func prune(now: TransportTime) {
        while head < samples.count, now - samples[head].time >= length {
            bytesInWindow -= samples[head].bytes
            head += 1
        }
        if head == samples.count {
            samples.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256 && head * 2 >= samples.count {
            samples.removeFirst(head)
            head = 0
        }
    }

    /// Events per second over the window ending at `now`.
    public mutating func eventsPerSecond(now: TransportTime) -> Double {
        prune(now: now)
        return Double(samples.count - head) / length.seconds
    }

    /// Bits per second over the window ending at `now`.
    public mutating func bitsPerSecond(now: TransportTime) -> Double {
        prune(now: now)
        return Double(bytesInWindow * 8) / length.seconds
    }
}
