/// What one direction of an emulated network does to the datagrams it carries. The defaults are a clean 10 ms
/// link: no jitter, loss, reordering or duplication, no bandwidth limit.
public struct LinkConditions: Sendable {
    public var delay: Duration
    /// Extra uniform random delay in [0, jitter]; above the send interval, datagrams overtake each other.
    public var jitter: Duration
    public var loss: Double
    /// The fraction of datagrams held back by `reorderExtra`, so later ones overtake them.
    public var reorder: Double
    public var reorderExtra: Duration
    public var duplicate: Double
    /// The bottleneck's rate: datagrams queue behind each other (without limit) and leave one by one.
    /// Nil: datagrams leave as soon as they are sent.
    public var bitsPerSecond: Int?
    /// The bottleneck's buffer, as time (tbf's `latency`): a datagram that would wait longer than this in the
    /// queue is dropped. Nil: the queue has no limit.
    public var maxQueueDelay: Duration?
    /// The bottleneck's token bucket, in bytes (tbf's `burst`): after a quiet spell, up to this many bytes pass at
    /// once before the rate applies again — what lets a short burst above the rate through without a queue.
    /// 0: a plain rate.
    public var burstBytes: Int
    /// Everything is dropped (a cable pulled, a NAT binding gone), without touching the other settings.
    public var cut: Bool

    public init(delay: Duration = .milliseconds(10), jitter: Duration = .zero, loss: Double = 0,
                reorder: Double = 0, reorderExtra: Duration = .milliseconds(25), duplicate: Double = 0,
                bitsPerSecond: Int? = nil, maxQueueDelay: Duration? = nil, burstBytes: Int = 0, cut: Bool = false) {
        self.delay = delay
        self.jitter = jitter
        self.loss = loss
        self.reorder = reorder
        self.reorderExtra = reorderExtra
        self.duplicate = duplicate
        self.bitsPerSecond = bitsPerSecond
        self.maxQueueDelay = maxQueueDelay
        self.burstBytes = burstBytes
        self.cut = cut
    }
}
