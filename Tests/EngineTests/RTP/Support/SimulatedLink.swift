@testable import EngineTransport

/// One direction of a simulated network on a virtual clock: fixed delay plus uniform jitter,
/// seeded random loss, occasional extra delay (reordering) and duplication. Deterministic for a seed.
struct SimulatedLink {
    struct Conditions {
        var delay: Duration = .milliseconds(40)
        var jitter: Duration = .milliseconds(10)
        var loss = 0.0
        var reorder = 0.0
        var reorderExtra: Duration = .milliseconds(25)
        var duplicate = 0.0
    }

    var conditions: Conditions
    private var rng: SplitMixRandom
    private var inFlight: [(at: TransportTime, order: Int, bytes: [UInt8])] = []
    private var counter = 0
    private(set) var sent = 0
    private(set) var dropped = 0
    private(set) var duplicated = 0

    init(_ conditions: Conditions, seed: UInt64) {
        self.conditions = conditions
        rng = SplitMixRandom(seed: seed)
    }

    mutating func send(_ bytes: [UInt8], now: TransportTime) {
        sent += 1
        if rng.unit() < conditions.loss { dropped += 1; return }
        let copies = rng.unit() < conditions.duplicate ? 2 : 1
        if copies == 2 { duplicated += 1 }
        for _ in 0..<copies {
            var delay = conditions.delay + conditions.jitter * rng.unit()
            if rng.unit() < conditions.reorder { delay += conditions.reorderExtra }
            counter += 1
            inFlight.append((now + delay, counter, bytes))
        }
    }

    var nextDelivery: TransportTime? { inFlight.map(\.at).min() }

    /// Datagrams due by `now`, in arrival order.
    mutating func deliver(now: TransportTime) -> [[UInt8]] {
        let due = inFlight.filter { $0.at <= now }.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
        inFlight.removeAll { $0.at <= now }
        return due.map(\.bytes)
    }
}
