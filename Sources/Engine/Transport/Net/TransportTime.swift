/// A point in time supplied by the caller: the sans-IO cores never read a clock, so tests can run a virtual one.
/// Nanoseconds from an arbitrary origin chosen by the driver.
public struct TransportTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = TransportTime(nanoseconds: 0)

    public static func < (a: TransportTime, b: TransportTime) -> Bool { a.nanoseconds < b.nanoseconds }

    /// Rounds a sub-nanosecond remainder UP: a deadline `t + d` must not come before the moment `now - t >= d`
    /// holds, or a timer fires, finds nothing due, and re-arms at the same instant (a virtual clock then spins
    /// forever; found with a NACK retry interval of RTT × 1.1).
    public static func + (t: TransportTime, d: Duration) -> TransportTime {
        let whole = d.nanoseconds
        return TransportTime(nanoseconds: t.nanoseconds + whole + (Duration.nanoseconds(whole) < d ? 1 : 0))
    }

    /// Wrapping: arrival times come from a peer's transport feedback, unwrapped with wrapping arithmetic
    /// (`SentPacketLog`), so a hostile peer can put two of them near opposite ends of the range; their difference
    /// must be garbage, not a trap. For times of our own clock it is the plain difference.
    public static func - (a: TransportTime, b: TransportTime) -> Duration {
        .nanoseconds(a.nanoseconds &- b.nanoseconds)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var description: String { "t=\(seconds)s" }
}

extension Duration {
    package var nanoseconds: Int64 {
        let c = components
        return c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
    }

    package func scaled(by factor: Double) -> Duration { .nanoseconds(Int64(Double(nanoseconds) * factor)) }
}
