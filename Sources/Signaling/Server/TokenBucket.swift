/// A token bucket: `capacity` tokens, refilled at `ratePerSecond`, one taken per event. Pure: the
/// caller passes the time, so tests step it by hand.
public struct TokenBucket: Sendable, Equatable {
    public let ratePerSecond: Double
    public let capacity: Double
    public private(set) var tokens: Double
    private var updatedAt: Double

    /// Starts full at `now`.
    public init(ratePerSecond: Double, capacity: Double, now: Double) {
        self.ratePerSecond = max(0, ratePerSecond)
        self.capacity = max(1, capacity)
        self.tokens = self.capacity
        self.updatedAt = now
    }

    /// Takes one token if there is one.
    public mutating func take(now: Double) -> Bool {
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whether the bucket has filled up again (the sender has been quiet long enough).
    public mutating func isFull(now: Double) -> Bool {
        refill(now: now)
        return tokens >= capacity
    }

    private mutating func refill(now: Double) {
        // A clock that went backwards (or a stale `now`) adds nothing.
        let elapsed = now - updatedAt
        guard elapsed > 0 else { return }
        tokens = min(capacity, tokens + elapsed * ratePerSecond)
        updatedAt = now
    }
}
