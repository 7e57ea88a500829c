import EngineTransport
/// When to probe the path for more rate, and how far. A probe sends padding paced above the estimate for 30 ms; what
/// arrives (`ProbeRateMeter`) is a rate the path has just carried, which the estimate may jump to, where growth alone
/// (8 % a second) takes 12 s to find a path 2.5 times wider. What each rule was measured against, and what was tried
/// and withdrawn: docs/congestion-control.md §5.
///
/// - Start: as soon as media flows, one probe at 3 × the initial rate.
/// - Further: while a result reaches `furtherShare` (70 %) of its probe's rate, the next follows at once at 2 × the
///   result, up to the maximum. Not 90 %: read through a busy receiver's feedback, probes of a path with room come
///   out 10-20 % under their rate, and the search stopped early.
/// - Periodic: every `interval` at 1.5 × the estimate, only while the sender is application-limited (under
///   `applicationLimitedShare` of the estimate), where the estimate cannot grow by itself. Never on a full link: a
///   shaper's token bucket lets a 30 ms burst through untouched, the probe "succeeds" and the estimate overshoots.
/// - Widened: when more than 1.1 × the learnt capacity gets through without a queue, for longer than a token bucket
///   can explain (`pathWidened`), one probe at 1.5 ×, then doubling while they succeed.
/// - Recovery: after a large drop (under `largeDropShare` of the rate before a run of decreases within `dropRun`), one
///   probe at 2 × `interval` after the last decrease, within `recoveryWindow`, only while application-limited.
/// - Never while the detector sees overuse or underuse (a queue filling or draining would be measured, not the
///   path), within `interval` of a decrease, or at the maximum.
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
