import EngineTransport
/// Spreads a frame's packets over time instead of sending them as one burst (docs/congestion-control.md §6, with
/// the factors tried and what each did on the bench).
///
/// Sent at once, a frame's packets reach the bottleneck at the local link's speed and queue there (a 3 KB frame
/// stands 48 ms in a 500 kbit/s router's buffer), and the delay detector reads that queue as congestion. Paced at
/// `factor` (1.2) × the estimate, a frame leaves over most of a 15 fps frame interval and a sixth of it queues.
/// libwebrtc's 2.5 × is for 30 frames a second; with conftui's twice larger frames, 2.5 × and 1.5 × both left each
/// frame's own queue in the trendline, read as overuse right after a probe found the link.
///
/// A token budget: it fills at the pacing rate up to `burstTime`'s worth (so an idle pacer sends a frame's first
/// packet at once), a packet leaves while the budget is positive and may overdraw it. What waits is bounded in time:
/// when the pacing rate would keep the oldest packet longer than `maxQueueTime` (a keyframe many times the average
/// frame), the rate rises so that everything queued is out by then; and in packets (`maxPackets`): beyond it,
/// packets leave at once.
/// Sans-IO: `poll(now:)` returns what may leave now, `nextDeadline` when to call again.
public struct PacketPacer: Sendable {
    /// A frame at the estimate leaves over 80 % of a 15 fps frame interval.
    public static let factor = 1.2
    public static let burstTime: Duration = .milliseconds(5)
    public static let maxQueueTime: Duration = .milliseconds(300)
    public static let maxPackets = 512
    /// Below this the pacer does not slow anything (bits per second): a start before any estimate.
    public static let minimumRate = 100_000

    private var queue: [(packet: [UInt8], at: TransportTime)] = []
    private var head = 0
    public private(set) var queuedBytes = 0
    private var budget = 0.0
    private var lastUpdate: TransportTime?
    /// Bits per second packets may leave at (the caller sets `factor` × its estimate).
    public var rate: Int = PacketPacer.minimumRate

    public init() {}

    public var queuedPackets: Int { queue.count - head }

    /// Queues a packet; `poll` hands it out when its turn comes.
    public mutating func enqueue(_ packet: [UInt8], now: TransportTime) {
        refill(now: now)
        queue.append((packet, now))
        queuedBytes += packet.count
    }

    /// The packets that may leave now, in the order they were queued.
    public mutating func poll(now: TransportTime) -> [[UInt8]] {
        refill(now: now)
        var out: [[UInt8]] = []
        while head < queue.count, budget > 0 || queuedPackets > Self.maxPackets {
            let packet = queue[head].packet
            head += 1
            queuedBytes -= packet.count
            budget -= Double(packet.count)
            out.append(packet)
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256 {
            queue.removeFirst(head)
            head = 0
        }
        return out
    }

    /// When a queued packet may next leave (nil: nothing queued).
    public var nextDeadline: TransportTime? {
        guard head < queue.count, let last = lastUpdate else { return nil }
        let deficit = max(-budget, 0) + 1
        return last + .nanoseconds(Int64((deficit * 8 / effectiveRate(now: last) * 1e9).rounded(.up)))
    }

    /// The pacing rate, raised so that what is queued is out by the time the oldest packet has waited
    /// `maxQueueTime` (at least 5 ms from now, so a late call does not ask for an infinite rate).
    private func effectiveRate(now: TransportTime) -> Double {
        let base = Double(max(rate, Self.minimumRate))
        guard head < queue.count else { return base }
        let left = max(queue[head].at + Self.maxQueueTime - now, .milliseconds(5))
        return max(base, Double(queuedBytes * 8) / (Double(left.nanoseconds) / 1e9))
    }

    private mutating func refill(now: TransportTime) {
        let rate = effectiveRate(now: now)
        let cap = rate / 8 * Double(Self.burstTime.nanoseconds) / 1e9
        // A new pacer starts with a full budget: the first packet leaves at once.
        let elapsed = lastUpdate.map { max(now - $0, .zero) } ?? Self.burstTime
        lastUpdate = now
        budget = min(budget + rate / 8 * Double(elapsed.nanoseconds) / 1e9, cap)
    }
}
