import EngineTransport
/// How much queue stands at the bottleneck now, from transport feedback (docs/congestion-control.md §4): each
/// packet's arrival (receiver's clock) less its send time (ours) is the path's delay plus an unknown clock offset plus
/// its queueing; the least such value lately is the path's delay and the offset alone, so what the newest packet
/// shows above it is queue.
///
/// The trendline sees whether a queue grows; this says how long it is, which `AimdRateControl.decreaseShare` drains
/// (why: at `AimdRateControl.drainTime`).
///
/// The least value is renewed from the newest after `baseWindow`, so a path that got longer (a route change, the
/// receiver's clock stepping forward) reads as queue for that long at most. A renewal during a standing queue takes
/// part of it for the path; the estimate then reads low, and the decrease is only as shallow as without it.
struct StandingQueue: Sendable {
    static let baseWindow: Duration = .seconds(10)
    /// More than any router holds; forged arrival times can put the difference anywhere in 2^64 ns, which would
    /// trap where a caller turns it into nanoseconds.
    static let longest: Duration = .seconds(10)

    /// The least (arrival - send) seen, and when it was taken.
    private var base: (offset: Duration, at: TransportTime)?
    /// What the newest packet reported showed above `base`.
    private(set) var queueing: Duration = .zero

    /// A packet sent at `sentAt` (our clock) arrived at `arrival` (the receiver's); `now` is ours.
    /// Both times come from our own log and `SentPacketLog`'s bounded unwrapping; `TransportTime`'s subtraction wraps.
    mutating func add(sentAt: TransportTime, arrival: TransportTime, now: TransportTime) {
        let offset = arrival - sentAt
        if base.map({ offset <= $0.offset || now - $0.at > Self.baseWindow }) ?? true { base = (offset, now) }
        queueing = min(max(offset - (base?.offset ?? offset), .zero), Self.longest)
    }
}
