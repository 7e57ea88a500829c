import Glibc
import EngineTransport
/// The delay-based rate: additive increase, multiplicative decrease, driven by the overuse detector (gcc-02 §5.5;
/// the measurements behind each rule: docs/congestion-control.md §4).
///
/// - Overusing: the rate drops to `beta` (0.9) of what the receiver acknowledged, or lower while a queue stands
///   (`decreaseShare`, `drainTime`), and returns to 0.9 × that once the queue is gone (`resumeAfterDrain`). gcc-02
///   recommends 0.85 for every decrease, which drains a queue it cannot measure; here the queue is measured, so the
///   plain decrease only has to get under the link, and the climb back is a third shorter. At most once per response
///   time (the round trip or the feedback delay, plus a frame interval, clamped to 10...200 ms) unless the
///   acknowledged rate fell below half of ours; the acknowledged rate at a decrease is learnt as the link capacity.
/// - Normal: grow by 8 % a second far from the learnt capacity, by about one packet per response time (RTT + 100 ms)
///   near it, and never beyond 1.5 × the acknowledged rate + 10 kbit/s: gcc-02 §5.5, "we must make sure that our
///   estimate does not diverge from the rate at which the sender is actually sending".
/// - Underusing: hold (the queue is draining; growing now would refill it).
/// - After a probe's raise (`raise(to:)`): no decrease for a response time, then within `probeTrust` decreases step
///   down from the rate (0.9 × it each time), no lower than 0.9 × the rate the probe started from, and learn no
///   capacity, because the acknowledged rate is still what the sender made before the jump. A queue long enough to
///   cut deeper for ends this: the raise overshot.
struct AimdRateControl: Sendable {
    static let beta = 0.9
    static let multiplicativeIncreasePerSecond = 1.08
    static let packetBits = 1200.0 * 8
    static let minimumIncreaseBps = 1000.0

    let minimum: Int
    let maximum: Int
    private(set) var rate: Int
    private var lastUpdate: TransportTime?
    private var lastDecrease: TransportTime?
    /// Mean and variance of the acknowledged rate at decreases, kbit/s (the variance normalised by the mean).
    private var capacityKbps: Double?
    private var capacityVariance = 0.4
    /// The rate a probe raised us from, and when.
    private var raisedFrom: (rate: Int, at: TransportTime)?
    static let probeTrust: Duration = .seconds(2)
    /// A new rate reaches the path with the encoder's next frame, up to one frame interval later (conftui encodes 15
    /// frames a second): until then, and until that frame's feedback is back, the overuse seen is the old rate's.
    static let frameInterval: Duration = .milliseconds(67)

    init(initial: Int, minimum: Int, maximum: Int) {
        self.minimum = minimum
        self.maximum = maximum
        rate = min(max(initial, minimum), maximum)
    }

    /// `feedbackDelay`: how long a change of rate takes to show in feedback (queueing and the feedback interval
    /// included), which spaces decreases; `roundTrip` (the path's) sets the additive increase.
    /// `queueing`: the queue standing at the bottleneck now (`StandingQueue`), which a decrease drains.
    mutating func update(_ usage: BandwidthUsage, acknowledged: Int?, roundTrip: Duration, feedbackDelay: Duration = .zero,
                         queueing: Duration = .zero, now: TransportTime) {
        let elapsed = lastUpdate.map { min(max(now - $0, .zero), .seconds(1)) } ?? .zero
        lastUpdate = now
        if usage != .overusing, let resume = resumeAfterDrain, queueing <= Self.drained {
            // The queue a deep cut was draining is gone: back to where a plain decrease would have left the rate.
            resumeAfterDrain = nil
            rate = max(rate, min(resume, maximum))
        }
        switch usage {
        case .overusing: decrease(acknowledged: acknowledged, roundTrip: max(roundTrip, feedbackDelay), queueing: queueing, now: now)
        case .underusing: break
        case .normal: increase(acknowledged: acknowledged, roundTrip: roundTrip, elapsed: elapsed)
        }
    }

    /// A decrease drains a standing queue within this. Half a second rather than a second: with a second, a probe
    /// read past a shaper's bucket left a 130-230 ms queue in a quarter of the schedule's phases
    /// (docs/congestion-control.md §4).
    static let drainTime: Duration = .milliseconds(500)
    /// The deepest cut: half of what arrives.
    static let minimumDrainShare = 0.5
    /// A queue this short counts as drained (the sawtooth's own overuse shows 10-20 ms).
    static let drained: Duration = .milliseconds(20)

    /// The share of the acknowledged rate a decrease goes to: `beta`, or less when a queue stands, so that it
    /// drains within `drainTime` (sending at share s of a link drains (1 - s) seconds of queue a second).
    static func decreaseShare(queueing: Duration) -> Double {
        let standing = Double(queueing.nanoseconds) / Double(drainTime.nanoseconds)
        return max(minimumDrainShare, min(beta, 1 - standing))
    }

    /// Where the rate returns once a queue a decrease cut deeper for has drained: `beta` × what arrived then. The
    /// deeper cut is for the queue, not for the link, which carried that much a moment ago; climbing back at 8 % a
    /// second from half a link would leave much of it unused for seconds.
    private var resumeAfterDrain: Int?

    private mutating func decrease(acknowledged: Int?, roundTrip: Duration, queueing: Duration, now: TransportTime) {
        let interval = min(max(roundTrip + Self.frameInterval, .milliseconds(10)), .milliseconds(200))
        let collapsed = acknowledged.map { $0 < rate / 2 } ?? false
        if let last = lastDecrease, now - last < interval, !collapsed { return }
        // Nor within one after a probe's raise: the feedback then still reports packets sent before it, and the
        // queue it shows is the probe's own (on the virtual clock a 0.92 Mbit/s result on a 1 Mbit/s link was cut
        // twice within 200 ms, to 0.75). Whatever was acknowledged: right after a jump it is what the sender made
        // before it, and reads as a collapse against the raised rate.
        if let raised = raisedFrom?.at, now - raised < interval { return }
        let base = Double(acknowledged ?? rate)
        let share = Self.decreaseShare(queueing: queueing)
        var next = Int(share * base)
        resumeAfterDrain = share < Self.beta ? Int(Self.beta * base) : nil
        // Right after a probe's raise the acknowledged rate is what was sent before it: no capacity is learnt from
        // it, and the decrease steps down from the rate instead, no lower than 0.9 × where the probe started.
        // A queue long enough to cut deeper for says the raise overshot: then what arrives is the link's rate, not
        // the encoder's ramp, and the decrease drains from it like any other.
        let sinceRaise = raisedFrom.flatMap { now - $0.at <= Self.probeTrust && share >= Self.beta ? $0.rate : nil }
        if sinceRaise == nil { raisedFrom = nil }
        if let from = sinceRaise { next = max(next, Int(Self.beta * Double(from)), Int(Self.beta * Double(rate))) }
        if next > rate { next = rate }   // a decrease never raises the rate (acknowledged can exceed it briefly)
        rate = min(max(next, minimum), maximum)
        lastDecrease = now
        if let ack = acknowledged, sinceRaise == nil { learnCapacity(kbps: Double(ack) / 1000) }
    }

    /// The link capacity learnt at decreases, bits per second (nil: none, or forgotten because more got through).
    var learntCapacity: Int? { capacityKbps.map { Int($0 * 1000) } }

    /// A probe measured `bps` through the path: the rate starts from there, and the capacity learnt at earlier
    /// decreases no longer holds (the path just carried more).
    mutating func raise(to bps: Int, now: TransportTime) {
        guard bps > rate else { return }
        resumeAfterDrain = nil
        if raisedFrom.map({ now - $0.at > Self.probeTrust }) ?? true { raisedFrom = (rate, now) }
        rate = min(max(bps, minimum), maximum)
        capacityKbps = nil
    }

    private mutating func learnCapacity(kbps: Double) {
        guard let mean = capacityKbps else { capacityKbps = kbps; return }
        // A sample far off the mean is a new capacity: start over from it.
        if abs(kbps - mean) > 3 * sigma(mean) { capacityKbps = kbps; capacityVariance = 0.4; return }
        let alpha = 0.05
        let next = (1 - alpha) * mean + alpha * kbps
        let normalised = (kbps - next) * (kbps - next) / max(next, 1)
        capacityVariance = min(max((1 - alpha) * capacityVariance + alpha * normalised, 0.4), 2.5)
        capacityKbps = next
    }

    private func sigma(_ mean: Double) -> Double { (capacityVariance * mean).squareRoot() }

    private mutating func increase(acknowledged: Int?, roundTrip: Duration, elapsed: Duration) {
        let seconds = Double(elapsed.nanoseconds) / 1e9
        guard seconds > 0 else { return }
        if let ack = acknowledged, let mean = capacityKbps, Double(ack) / 1000 > mean + 3 * sigma(mean) {
            capacityKbps = nil   // the path carries more than the capacity we learnt: it changed
        }
        let current = Double(rate)
        var next: Double
        if let mean = capacityKbps, abs(current / 1000 - mean) <= 3 * sigma(mean) {
            let response = Double((roundTrip + .milliseconds(100)).nanoseconds) / 1e9
            next = current + max(Self.minimumIncreaseBps, Self.packetBits / response) * seconds
        } else {
            next = current * pow(Self.multiplicativeIncreasePerSecond, seconds)
            next = max(next, current + Self.minimumIncreaseBps * seconds)
        }
        if let ack = acknowledged { next = min(next, max(current, 1.5 * Double(ack) + 10_000)) }
        rate = min(max(Int(next), minimum), maximum)
    }
}
