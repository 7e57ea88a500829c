import Engine

/// What an emulated link carries: anything with a size on the wire (the bandwidth limit needs it).
public protocol EmulatedDatagram {
    var byteCount: Int { get }
}

extension Array: EmulatedDatagram where Element == UInt8 {
    public var byteCount: Int { count }
}

extension Transmit: EmulatedDatagram {
    public var byteCount: Int { bytes.count }
}

/// One direction of an emulated network on a virtual clock, seeded, so a run replays exactly from its seed and
/// takes only as long as the CPU needs. A datagram draws its random numbers in a fixed order (loss; duplication;
/// jitter and reordering for each copy) whether or not those settings are in use, so what a seed does with
/// given conditions does not depend on which of them are zero.
public struct EmulatedLink<Datagram: EmulatedDatagram> {
    public var conditions: LinkConditions
    private var rng: SplitMixRandom
    private var inFlight: [(at: TransportTime, order: Int, datagram: Datagram)] = []
    private var order = 0
    /// When the bottleneck has finished sending what is queued.
    private var busyUntil = TransportTime.zero
    /// Bytes in the token bucket at `busyUntil` (`LinkConditions.burstBytes`); nil: full (tbf starts full).
    private var tokens: Double?
    public private(set) var sent = 0
    public private(set) var dropped = 0
    public private(set) var duplicated = 0

    public init(_ conditions: LinkConditions = LinkConditions(), seed: UInt64) {
        self.conditions = conditions
        rng = SplitMixRandom(seed: seed)
    }

    public mutating func send(_ datagram: Datagram, now: TransportTime) {
        sent += 1
        if conditions.cut || rng.unit() < conditions.loss {
            dropped += 1
            return
        }
        let copies = rng.unit() < conditions.duplicate ? 2 : 1
        if copies == 2 { duplicated += 1 }
        var departure = now
        if let rate = conditions.bitsPerSecond {
            if let limit = conditions.maxQueueDelay, busyUntil - now > limit {
                dropped += 1
                return
            }
            // tbf: tokens refill at the rate up to the bucket's size while the link idles; a datagram leaves once
            // the bucket holds its size.
            let start = max(now, busyUntil)
            let bytesPerSecond = Double(rate) / 8
            let idle = Double((start - busyUntil).nanoseconds) / 1e9
            let available = min(Double(conditions.burstBytes), (tokens ?? .infinity) + idle * bytesPerSecond)
            let size = Double(datagram.byteCount)
            departure = start + .seconds(max(0, size - available) / bytesPerSecond)
            tokens = max(0, available - size)
            busyUntil = departure
        }
        for _ in 0..<copies {
            var delay = conditions.delay + conditions.jitter * rng.unit()
            if rng.unit() < conditions.reorder { delay += conditions.reorderExtra }
            order += 1
            inFlight.append((departure + delay, order, datagram))
        }
    }

    public var nextDelivery: TransportTime? {
        // A loop rather than a key path: a room harness asks this once per event, and debug builds pay for key paths.
        var earliest: TransportTime?
        for d in inFlight where earliest.map({ d.at < $0 }) ?? true { earliest = d.at }
        return earliest
    }

    /// The datagrams due by `now`, in arrival order.
    public mutating func deliver(now: TransportTime) -> [Datagram] { deliverTimed(now: now).map { $0.datagram } }

    mutating func deliverTimed(now: TransportTime) -> [(at: TransportTime, datagram: Datagram)] {
        guard nextDelivery.map({ $0 <= now }) ?? false else { return [] }
        let due = inFlight.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
        inFlight.removeAll { $0.at <= now }
        return due.map { ($0.at, $0.datagram) }
    }
}
