import EngineTransport
/// The rate at which packets reached the receiver, from transport feedback: what the path actually carried over the
/// last `window` of arrivals (docs/congestion-control.md). A decrease starts from it rather than from the rate we
/// asked for, and an increase is held when the encoder does not use what it already has.
struct AcknowledgedBitrate: Sendable {
    static let window: Duration = .milliseconds(500)
    /// Shorter spans give a rate too noisy to act on.
    static let minimumSpan: Duration = .milliseconds(150)
    /// A bound on what is kept even if a peer reports absurd arrival times (4 s of packets at 1000 a second).
    static let maxPackets = 4096

    private var arrivals: [(at: TransportTime, bytes: Int)] = []
    private var head = 0

    mutating func add(arrival: TransportTime, bytes: Int) {
        arrivals.append((arrival, bytes))
        if arrivals.count - head > Self.maxPackets { head += 1 }
        // Arrivals of one feedback are in sequence order, not time order; the newest decides what is too old.
        guard let newest = arrivals.last?.at else { return }
        while head < arrivals.count, newest - arrivals[head].at > Self.window { head += 1 }
        if head > 1024 { arrivals.removeFirst(head); head = 0 }
    }

    /// Bits per second over the window, once it spans `minimumSpan`.
    var bitsPerSecond: Int? {
        guard head < arrivals.count, let newest = arrivals.last?.at else { return nil }
        let span = max(newest - arrivals[head].at, .zero)
        guard span >= Self.minimumSpan else { return nil }
        let bytes = arrivals[head...].reduce(0) { $0 + $1.bytes }
        let seconds = Double(max(span, Self.window).nanoseconds) / 1e9
        return Int(Double(bytes * 8) / seconds)
    }
}
