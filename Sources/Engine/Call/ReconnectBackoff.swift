/// When to try the signaling connection again after it was lost, as a sans-IO core: the caller feeds failures and
/// successful joins with `now` from the monotonic clock (a wall-clock step must not shorten or stretch a wait).
/// Exponential backoff: 0.5 s doubling to 10 s, each wait jittered by ±20 % from an injected seeded generator so that
/// the clients of a restarted server do not all come back at the same instant; reset after a successful join.
public struct ReconnectBackoff: Sendable {
    public static let initial: Duration = .milliseconds(500)
    public static let cap: Duration = .seconds(10)
    public static let jitter = 0.2

    private var random: SplitMixRandom
    /// The un-jittered delay of the next attempt.
    public private(set) var base: Duration = ReconnectBackoff.initial
    /// Failures since the last successful join.
    public private(set) var failures = 0
    /// When the next attempt is due, if a failure is waiting for one.
    public private(set) var nextDeadline: TransportTime?
    /// The jittered wait chosen by the last `failed`, in seconds (for the status bar and the log).
    public private(set) var lastWaitSeconds = 0.0

    public init(random: SplitMixRandom) { self.random = random }

    /// The connection was lost or an attempt failed at `now`: returns when to try again (also `nextDeadline`).
    @discardableResult
    public mutating func failed(now: TransportTime) -> TransportTime {
        let factor = 1 - Self.jitter + 2 * Self.jitter * random.unit()
        let wait = base * factor
        failures += 1
        lastWaitSeconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        base = min(base * 2, Self.cap)
        let at = now + wait
        nextDeadline = at
        return at
    }

    /// Whether the attempt is due at `now`; clears the deadline when it is (the caller then tries once).
    public mutating func isDue(now: TransportTime) -> Bool {
        guard let at = nextDeadline, at <= now else { return false }
        nextDeadline = nil
        return true
    }

    /// A join succeeded: the next loss starts at 0.5 s again.
    public mutating func joined() {
        base = Self.initial
        failures = 0
        nextDeadline = nil
    }
}
