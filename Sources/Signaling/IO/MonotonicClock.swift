#if canImport(Glibc)
import Glibc
#endif

/// Monotonic seconds, for timeouts (never wall-clock time, which can jump).
enum MonotonicClock {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A reading of the monotonic clock: the `now` the sans-IO cores take. A type of its own so that a
/// duration or a wall-clock time cannot be passed where an instant is meant. Tests start one at any
/// value and advance it themselves: a virtual clock.
struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Seconds from an arbitrary origin (the clock's, or a test's).
    var seconds: Double

    init(seconds: Double) { self.seconds = seconds }

    static var now: MonotonicInstant { MonotonicInstant(seconds: MonotonicClock.now()) }

    static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.seconds < b.seconds }
    static func + (instant: MonotonicInstant, seconds: Double) -> MonotonicInstant { MonotonicInstant(seconds: instant.seconds + seconds) }
    /// The seconds from `b` to `a`.
    static func - (a: MonotonicInstant, b: MonotonicInstant) -> Double { a.seconds - b.seconds }
}
