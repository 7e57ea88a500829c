/// A cap on log lines for events a client can repeat at will (a refused connection costs it a
/// SYN; a join, a leave or a refused message one frame): a flood of them must not become a flood
/// of log lines filling the operator's disk. A token bucket of lines; the next line written after
/// some were left out says how many. Pure: the time is an input.
struct LogThrottle: Sendable, Equatable {
    private var bucket: TokenBucket
    private var suppressed = 0

    /// `perSecond` lines sustained, `burst` at once.
    init(perSecond: Double, burst: Int, now: Double = 0) {
        bucket = TokenBucket(ratePerSecond: perSecond, capacity: Double(max(1, burst)), now: now)
    }

    /// The suffix to write with the line now (`""` or `" (N more like it not logged)"`), or nil to skip it.
    mutating func admit(now: Double) -> String? {
        guard bucket.take(now: now) else {
            suppressed += 1
            return nil
        }
        defer { suppressed = 0 }
        return suppressed == 0 ? "" : " (\(suppressed) more like it not logged)"
    }
}
