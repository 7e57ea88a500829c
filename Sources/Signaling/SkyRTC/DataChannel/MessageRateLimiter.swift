/// Counts one peer's messages in one-second windows: past `limit` in a window the rest of that window is
/// dropped, and only the first drop says so, so a flood costs one log line a second, not one a message.
struct MessageRateLimiter {
    enum Verdict: Equatable { case admitted, firstDropped, dropped }

    let limit: Int
    private var windowStart: MonotonicInstant?
    private var count = 0

    init(limit: Int) { self.limit = max(1, limit) }

    mutating func admit(now: MonotonicInstant) -> Verdict {
        // A clock read that goes back (it should not) starts a new window rather than extending one forever.
        if let start = windowStart, now >= start, now - start < 1 {
            count += 1
        } else {
            windowStart = now
            count = 1
        }
        if count <= limit { return .admitted }
        return count == limit + 1 ? .firstDropped : .dropped
    }
}
