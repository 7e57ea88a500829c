// The one monotonic clock (`MonotonicClock.now()`, seconds) and `Duration.seconds`, from OpenSSLSupport (the target
// below both Signaling and Engine), re-exported to whoever imports Signaling.
@_exported import enum OpenSSLSupport.MonotonicClock

/// A reading of the monotonic clock: the `now` the sans-IO cores take. A type of its own so that a
/// duration or a wall-clock time cannot be passed where an instant is meant. Tests start one at any
/// value and advance it themselves: a virtual clock. Public for `ReconnectBackoff`, whose driver is in ConfTUI.
public struct MonotonicInstant: Comparable, Hashable, Sendable {
    /// Seconds from an arbitrary origin (the clock's, or a test's).
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public static var now: MonotonicInstant { MonotonicInstant(seconds: MonotonicClock.now()) }

    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.seconds < b.seconds }
    public static func + (instant: MonotonicInstant, seconds: Double) -> MonotonicInstant { MonotonicInstant(seconds: instant.seconds + seconds) }
    /// The seconds from `b` to `a`.
    public static func - (a: MonotonicInstant, b: MonotonicInstant) -> Double { a.seconds - b.seconds }
}
