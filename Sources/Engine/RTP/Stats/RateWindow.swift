import EngineTransport
/// Counts events and bytes over a sliding window (default 1 s), for frame rate and bitrate.
public struct RateWindow: Sendable {
    public let length: Duration
    private var samples: [(time: TransportTime, bytes: Int)] = []

    public init(length: Duration = .seconds(1)) { self.length = length }

    public mutating func add(bytes: Int = 0, now: TransportTime) {
        samples.append((now, bytes))
        prune(now: now)
    }

    private mutating func prune(now: TransportTime) {
        if let cut = samples.firstIndex(where: { now - $0.time < length }) {
            if cut > 0 { samples.removeFirst(cut) }
        } else {
            samples.removeAll()
        }
    }

    /// Events per second over the window ending at `now`.
    public mutating func eventsPerSecond(now: TransportTime) -> Double {
        prune(now: now)
        return Double(samples.count) / (Double(length.components.seconds) + Double(length.components.attoseconds) / 1e18)
    }

    /// Bits per second over the window ending at `now`.
    public mutating func bitsPerSecond(now: TransportTime) -> Double {
        prune(now: now)
        let seconds = Double(length.components.seconds) + Double(length.components.attoseconds) / 1e18
        return Double(samples.reduce(0) { $0 + $1.bytes } * 8) / seconds
    }
}
