/// One section of the subscriber's offer, from the `streams` list of Janus's `attached` or `updated` event:
/// the only reliable map from a mid to a publisher, since Janus reuses freed mids for later feeds.
public struct JanusSubscriberStream: Sendable, Equatable {
    /// The subscriber offer's mid (not the publisher's).
    public var mid: String
    public var kind: JanusMediaKind
    /// The publisher it carries; nil for an inactive section (its publisher left) or the shared data channel.
    public var feed: UInt64?
    public var display: String?
    /// False when the section has no source (Janus offers it `a=inactive`).
    public var active: Bool

    public init(mid: String, kind: JanusMediaKind, feed: UInt64?, display: String?, active: Bool) {
        self.mid = mid
        self.kind = kind
        self.feed = feed
        self.display = display
        self.active = active
    }
}
