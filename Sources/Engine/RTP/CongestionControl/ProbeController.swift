import EngineTransport
/// When to probe the path for more rate, and how far (docs/congestion-control.md §5). The delay-based rate grows by
/// 8 % a second at most, so without probes a call takes 12 s to find a path 2.5 times wider, and starts from its
/// initial 300 kbit/s the same way. A probe sends padding paced above the estimate for 30 ms; what arrives
/// (`ProbeRateMeter`) is a rate the path has just carried, which the estimate may jump to.
///
/// - At the start, as soon as media flows: one probe at 3 × the initial rate (libwebrtc probes 3× and 6× its start).
/// - While probes succeed (the result reaches `furtherShare` of the probe's rate: the path did not limit it), the
///   next follows at once at 2 × the result, up to the maximum: doubling, as a start-up search.
/// - Otherwise every `interval`, at 1.5 × the estimate, but only while the sender is application-limited (it sends
///   under `applicationLimitedShare` of the estimate: a still picture, an encoder at its cap). There the estimate
///   cannot grow by itself (AIMD stops at 1.5 × what arrives), and the probe keeps it in touch with the path.
///   Not on a full link: a router's shaper lets a burst through at line rate until its token bucket is empty (tbf's
///   `burst`, 4 KB in the bench), which on a 500 kbit/s link hides 64 ms of excess; a 30 ms probe then "succeeds",
///   the estimate jumps above the link, and the overshoot fills the buffer. Measured on the bench: probing a full
///   500 kbit/s link every 2 s took its p95 from 81 to 321 ms with 4 % drops. libwebrtc probes periodically only
///   when application-limited too.
/// - Never while the detector sees overuse or underuse (a queue filling or draining would be measured, not the
///   path), never within `interval` of a decrease, never at the maximum.
struct ProbeController: Sendable {
    static let startMultiplier = 3.0
    static let furtherMultiplier = 2.0
    static let periodicMultiplier = 1.5
    static let furtherShare = 0.9
    static let applicationLimitedShare = 0.75
    static let interval: Duration = .seconds(2)
    /// Looked at again after this when the detector was not `.normal`.
    static let recheck: Duration = .milliseconds(250)

    private var nextAt: TransportTime?
    private var multiplier = startMultiplier
    private var pending: (id: Int, bitsPerSecond: Int, at: TransportTime)?
    private var lastDecrease: TransportTime?
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
        if multiplier == Self.periodicMultiplier {
            guard let sent = sentRate, Double(sent) < Self.applicationLimitedShare * Double(target) else {
                nextAt = now + Self.recheck
                return nil
            }
        }
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
        if let got = bitsPerSecond, Double(got) >= Self.furtherShare * Double(p.bitsPerSecond), got < maximum, !cutSince {
            multiplier = Self.furtherMultiplier
            nextAt = now
        } else {
            multiplier = Self.periodicMultiplier
            nextAt = now + Self.interval
        }
    }

    /// The delay-based rate was cut: the path is full; no probe for a while.
    mutating func onDecrease(now: TransportTime) {
        multiplier = Self.periodicMultiplier
        lastDecrease = now
        if pending == nil, let at = nextAt { nextAt = max(at, now + Self.interval) }
    }
}
