/// A token bucket of terminal bytes, shared by every tile on a screen.
///
/// Time comes from the caller (frame timestamps in seconds), never from a clock, so the
/// renderer stays deterministic. Tokens accrue at `bytesPerSecond` up to half a second's worth;
/// a frame may drive the bucket into debt (a full repaint does), and while it is in debt tiles
/// drop frames instead of queueing them, which lowers their frame rate until the link catches up.
public struct ByteBudget: Sendable {
    /// Default: a 1 MB/s link shared by all tiles (8 Mbit/s, a modest SSH path).
    public static let defaultBytesPerSecond = 1_000_000

    public var bytesPerSecond: Int
    public private(set) var tokens: Double
    private var lastTime: Double?

    public init(bytesPerSecond: Int = ByteBudget.defaultBytesPerSecond) {
        precondition(bytesPerSecond > 0)
        self.bytesPerSecond = bytesPerSecond
        tokens = Double(bytesPerSecond) / 2
    }

    public var capacity: Double { Double(bytesPerSecond) / 2 }

    /// Adds the tokens earned since the last call.
    public mutating func refill(now: Double) {
        if let last = lastTime, now > last { tokens = min(capacity, tokens + (now - last) * Double(bytesPerSecond)) }
        if lastTime == nil || now > lastTime! { lastTime = now }
    }

    public mutating func spend(_ bytes: Int) { tokens -= Double(bytes) }

    /// Whether the link owes bytes: tiles skip frames while it does.
    public var inDebt: Bool { tokens < 0 }

    /// How full the bucket is, 0 (empty or in debt) to 1 (a half second to spare).
    public var fill: Double { max(0, tokens) / capacity }
}
