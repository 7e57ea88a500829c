import EngineTransport
/// When to probe the path for more rate, and how far (docs/congestion-control.md §5). The delay-based rate grows by
/// 8 % a second at most, so without probes a call takes 12 s to find a path 2.5 times wider, and starts from its
/// initial 300 kbit/s the same way. A probe sends padding paced above the estimate for 30 ms; what arrives
/// (`ProbeRateMeter`) is a rate the path has just carried, which the estimate may jump to.
///
/// - At the start, as soon as media flows: one probe at 3 × the initial rate (libwebrtc probes 3× and 6× its start).
/// - While probes succeed (the result reaches `furtherShare` of the probe's rate: the path did not limit it much), the
///   next follows at once at 2 × the result, up to the maximum: doubling, as a start-up search. 70 %, libwebrtc's
///   threshold too: a probe read through a busy receiver's feedback comes out 10-20 % under its rate on a path with
///   room (its arrival stamps spread the 30 ms), and at 90 % the search for 2.5 Mbit/s sending to Chromium stopped
///   after its first probe in two bench runs of three, leaving the rest to 8 % a second (then: 3-4 s in all four
///   runs). A search that goes one probe too far costs that probe's excess in the queue (30 ms at most 2 × what the
///   path carries) and nothing more: the estimate jumps only to what arrived.
/// - Otherwise every `interval`, at 1.5 × the estimate, but only while the sender is application-limited (it sends
///   under `applicationLimitedShare` of the estimate: a still picture, an encoder at its cap). There the estimate
///   cannot grow by itself (AIMD stops at 1.5 × what arrives), and the probe keeps it in touch with the path.
///   Not on a full link: a router's shaper lets a burst through at line rate until its token bucket is empty (tbf's
///   `burst`, 4 KB in the bench), which on a 500 kbit/s link hides 64 ms of excess; a 30 ms probe then "succeeds",
///   the estimate jumps above the link, and the overshoot fills the buffer. Measured on the bench: probing a full
///   500 kbit/s link every 2 s took its p95 from 81 to 321 ms with 4 % drops. libwebrtc probes periodically only
///   when application-limited too.
/// - When the path has visibly widened on a full link: what arrives is 1.1 × the capacity learnt at the last
///   decreases, with no queue building, and has been long enough for a shaper's token bucket not to explain it
///   (`pathWidened`; the hold is `SendSideBandwidthEstimator.widenedHold`). Then a probe at 1.5 × (the link was
///   full a moment ago, and a probe at twice what it carried queues for its whole length), and doubling while they
///   succeed. At 1.2 × the search after 1 → 2.5 Mbit/s began 4-5 s after the change on the bench, too late for
///   RFC 8867's 5 s. A bucket passes its size above the link's rate once after a quiet spell (4 KB: 13 % of
///   500 kbit/s over the acknowledged rate's 500 ms), and with rates counted without IP/UDP headers the learnt
///   capacity was 0.93 of the link: a single window met the test on slow full links with nothing widened, each time
///   costing a probe and a decrease (the bench's 500 kbit/s p95).
/// - After a large drop (the rate fell below half of what it was before a run of decreases, within 3 s), while the
///   sender is application-limited: one probe at 2 ×, `interval` after the last decrease, within
///   `recoveryWindow` (libwebrtc probes after a large drop only in ALR, too). On a full link the decreases from what
///   arrives find the new capacity, and a probe there reads the shaper's bucket (on the bench: 2 × 0.2 Mbit/s
///   probes read 0.5-0.8 Mbit/s of a 0.6 Mbit/s link, and the estimate overshot and fell back, several times).
/// - Never while the detector sees overuse or underuse (a queue filling or draining would be measured, not the
///   path), never within `interval` of a decrease, never at the maximum.
struct ProbeController: Sendable {
    static let startMultiplier = 3.0
    static let furtherMultiplier = 2.0
    static let periodicMultiplier = 1.5
    static let widenedMultiplier = 1.5
    static let furtherShare = 0.7
    static let applicationLimitedShare = 0.75
    static let interval: Duration = .seconds(2)
    /// Looked at again after this when the detector was not `.normal`.
    static let recheck: Duration = .milliseconds(250)

    /// Which kind of probe comes next: it sets the multiplier, and whether the sender must be application-limited.
    private enum Step { case start, further, widened, periodic }

    private var nextAt: TransportTime?
    private var step = Step.start
    private var pending: (id: Int, bitsPerSecond: Int, at: TransportTime)?
    private var lastDecrease: TransportTime?
    /// The rate before the current run of decreases, and when that run began.
    private var beforeDrop: (rate: Int, at: TransportTime)?
    /// A large drop happened: the next probe measures the new capacity whatever the sender uses.
    private var recoveryUntil: TransportTime?
    /// How long after a large drop an application-limited sender still probes at the recovery multiplier.
    static let recoveryWindow: Duration = .seconds(5)
    static let largeDropShare = 0.5
    static let dropRun: Duration = .seconds(3)
    private var nextId = 1
    private(set) var probesSent = 0

    /// Media began: the start probe may go.
    mutating func mediaStarted(now: TransportTime) {
        if nextAt == nil && pending == nil && probesSent == 0 { nextAt = now }
    }

    var nextDeadline: TransportTime? { pending == nil ? nextAt : nil }

    /// A probe to send now, or nil.
    /// `sentRate`: what the sender put on the path lately, bits per second (nil: not known yet).
    mutating func poll(target: Int, maximum: Int, usage: BandwidthUsage, sentRate: Int?, now: TransportTime) -> ProbeCluster? {
        guard pending == nil, let at = nextAt, now >= at else { return nil }
        guard usage == .normal else { nextAt = now + Self.recheck; return nil }
        let multiplier: Double
        switch step {
        case .start: multiplier = Self.startMultiplier
        case .further: multiplier = Self.furtherMultiplier
        case .widened: multiplier = Self.widenedMultiplier
        case .periodic:
            guard let sent = sentRate, Double(sent) < Self.applicationLimitedShare * Double(target) else {
                nextAt = now + Self.recheck
                return nil
            }
            let recovering = recoveryUntil.map { now <= $0 } ?? false
            multiplier = recovering ? Self.furtherMultiplier : Self.periodicMultiplier
        }
        recoveryUntil = nil
        let rate = min(Int(Double(target) * multiplier), maximum)
        guard rate > target else { nextAt = now + Self.interval; return nil }
        let cluster = ProbeCluster(id: nextId, bitsPerSecond: rate, startedAt: now)
        nextId += 1
        probesSent += 1
        pending = (cluster.id, rate, now)
        nextAt = nil
        return cluster
    }

    /// The result of probe `id` (nil: it measured nothing).
    mutating func onResult(id: Int, bitsPerSecond: Int?, maximum: Int, now: TransportTime) {
        guard let p = pending, p.id == id else { return }
        pending = nil
        let cutSince = lastDecrease.map { $0 >= p.at } ?? false
        if let got = bitsPerSecond, Double(got) >= Self.furtherShare * Double(p.bitsPerSecond), p.bitsPerSecond < maximum, !cutSince {
            step = .further
            nextAt = now
        } else {
            step = .periodic
            nextAt = now + Self.interval
        }
    }

    /// More than the learnt capacity got through without a queue: search upwards now.
    mutating func pathWidened(now: TransportTime) {
        guard pending == nil else { return }
        step = .widened
        nextAt = now
    }

    /// The delay-based rate was cut from `before` to `after`: the path is full; no probe for a while.
    mutating func onDecrease(from before: Int, to after: Int, now: TransportTime) {
        step = .periodic
        lastDecrease = now
        if beforeDrop.map({ now - $0.at > Self.dropRun }) ?? true { beforeDrop = (before, now) }
        if let start = beforeDrop, Double(after) < Self.largeDropShare * Double(start.rate) {
            recoveryUntil = now + Self.recoveryWindow
            beforeDrop = nil
        }
        // Postpone the next probe; after a large drop, schedule one if none was.
        if pending == nil, nextAt != nil || recoveryUntil != nil { nextAt = max(nextAt ?? now, now + Self.interval) }
    }
}
