/// Messages per second for one connection: a token bucket, a warning on the first message over
/// the rate, a close if the client keeps going. Pure: the time is an input.
///
/// An episode of excess starts with the first refused message and ends only when the bucket is
/// full again (the client has been quiet for `burst / perSecond` seconds). Within one episode the
/// first refusal is answered with `_error` `rate_limited`; after `refusalsBeforeClose` refusals
/// the connection is closed with 1008. A client that merely bursts past the bucket once loses a
/// few messages and is told so; one that stays over the rate is closed rather than served forever.
public struct MessageRateLimit: Sendable, Equatable {
    public enum Verdict: Equatable, Sendable {
        case accept
        /// Drop the message; `warn` on the first refusal of an episode.
        case refuse(warn: Bool)
        /// Drop it and close the connection (1008 policy violation).
        case close
    }

    private var bucket: TokenBucket
    private var refusals = 0
    public let refusalsBeforeClose: Int

    public init(perSecond: Double, burst: Int, refusalsBeforeClose: Int, now: Double) {
        bucket = TokenBucket(ratePerSecond: perSecond, capacity: Double(max(1, burst)), now: now)
        self.refusalsBeforeClose = max(1, refusalsBeforeClose)
    }

    public mutating func admit(now: Double) -> Verdict {
        if refusals > 0 && bucket.isFull(now: now) { refusals = 0 }
        if bucket.take(now: now) { return .accept }
        refusals += 1
        if refusals >= refusalsBeforeClose { return .close }
        return .refuse(warn: refusals == 1)
    }
}
