/// When to try the signaling connection again after it was lost, as a sans-IO core: the caller feeds failures and
/// successful joins with `now` from the monotonic clock (a wall-clock step must not shorten or stretch a wait).
/// Exponential backoff: 0.5 s doubling to 10 s, each wait jittered by ±20 % from an injected seeded generator so that
/// the clients of a restarted server do not all come back at the same instant; reset after a successful join.
/// Any seeded generator will do (conftui passes Engine's `SplitMixRandom`; Signaling does not depend on Engine).
public struct ReconnectBackoff<Random: RandomNumberGenerator & Sendable>: Sendable {
    public static var initial: Duration { .milliseconds(500) }
    public static var cap: Duration { .seconds(10) }
    public static var jitter: Double { 0.2 }

    private var random: Random
    /// The un-jittered delay of the next attempt.
    public private(set) var base: Duration = Self.initial
    /// Failures since the last successful join.
    public private(set) var failures = 0
    /// When the next attempt is due, if a failure is waiting for one.
    public private(set) var nextDeadline: MonotonicInstant?
    /// The jittered wait chosen by the last `failed`, in seconds (for the status bar and the log).
    public private(set) var lastWaitSeconds = 0.0

    public init(random: Random) { self.random = random }

    /// The connection was lost or an attempt failed at `now`: returns when to try again (also `nextDeadline`).
    @discardableResult
    public mutating func failed(now: MonotonicInstant) -> MonotonicInstant {
        let factor = 1 - Self.jitter + 2 * Self.jitter * Double.random(in: 0..<1, using: &random)
        let wait = base * factor
        failures += 1
        lastWaitSeconds = wait.seconds
        base = min(base * 2, Self.cap)
        let at = now + lastWaitSeconds
        nextDeadline = at
        return at
    }

    /// Whether the attempt is due at `now`; clears the deadline when it is (the caller then tries once).
    public mutating func isDue(now: MonotonicInstant) -> Bool {
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
