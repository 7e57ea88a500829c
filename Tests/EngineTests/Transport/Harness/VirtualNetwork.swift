@testable import EngineTransport

/// A simulated UDP network on a virtual clock: seeded loss, delay, jitter (which reorders), and a switch that
/// cuts all traffic. Deterministic for a given seed; runs as fast as the CPU allows.
struct VirtualNetwork {
    struct Packet {
        var deliverAt: TransportTime
        var sequence: Int
        var transmit: Transmit
    }

    var rng: SplitMix64
    var loss: Double = 0
    var delay: Duration = .milliseconds(10)
    /// Extra random delay in [0, jitter]; with jitter above the send interval, packets overtake each other.
    var jitter: Duration = .zero
    var cut = false
    private(set) var inFlight: [Packet] = []
    private(set) var sent = 0
    private(set) var dropped = 0
    private var sequence = 0

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func send(_ t: Transmit, now: TransportTime) {
        sent += 1
        if cut || rng.chance(loss) {
            dropped += 1
            return
        }
        let extra: Duration = jitter == .zero ? .zero : .nanoseconds(Int64.random(in: 0...jitter.nanoseconds, using: &rng))
        sequence += 1
        inFlight.append(Packet(deliverAt: now + delay + extra, sequence: sequence, transmit: t))
    }

    var nextDelivery: TransportTime? { inFlight.map(\.deliverAt).min() }

    /// Removes and returns the packets due at `now`, in delivery order.
    mutating func due(at now: TransportTime) -> [Transmit] {
        let ready = inFlight.filter { $0.deliverAt <= now }.sorted { ($0.deliverAt, $0.sequence) < ($1.deliverAt, $1.sequence) }
        inFlight.removeAll { $0.deliverAt <= now }
        return ready.map(\.transmit)
    }
}
