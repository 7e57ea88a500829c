import EngineTransport
/// Spreads a frame's packets over time instead of sending them as one burst (docs/congestion-control.md §6).
///
/// An encoded frame leaves the encoder at once; sent at once, its packets arrive at the bottleneck at the speed of the
/// local link and queue there: a 3 KB frame on a 500 kbit/s path stands 48 ms in the router's buffer before its last
/// packet is through, and the delay detector sees that queue as congestion noise. Paced at `factor` times the
/// estimate, the same frame leaves over 40 ms and the peak queue at the bottleneck is what the rates differ by, a
/// sixth of the frame, not the whole burst. libwebrtc paces at 2.5 × for 30 frames a second; conftui sends 15, so a
/// frame at the estimate is twice as large, and at 2.5 × it stood 60 % of itself in the queue every frame: on the
/// bench a 2.5 Mbit/s link read as overused after every probe that found it (each costing a decrease to 0.85 × what
/// was acknowledged, 0.7-1 Mbit/s). At 1.5 × the estimate reached 2.5 Mbit/s, but a frame still stood a third of
/// itself in the queue, rising over nine of the trendline's 20 packet groups: two frames fill its window, so it
/// read each frame's own queue as a trend: with 50 audio packets a second and every header counted (as a real link
/// does), the virtual-clock call missed RFC 8867's 5 s to 2.5 Mbit/s in all three seeded capacity schedules, each
/// time cut right after the probe that found the link. At 1.2 × a frame leaves over most of its interval, a sixth
/// of it queues, and all three make it.
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
