import EngineTransport
/// When to send the next regular RTCP report. RFC 3550 §6.3.1 randomizes each interval to
/// 0.5...1.5 times the nominal one so participants do not synchronize; the randomness comes from a
/// seeded generator so a session (and its tests) stays deterministic.
public struct ReportScheduler: Sendable {
    public let interval: Duration
    private var rng: SplitMixRandom
    public private(set) var nextReport: TransportTime?

    public init(interval: Duration = .seconds(1), seed: UInt64) {
        self.interval = interval
        rng = SplitMixRandom(seed: seed)
    }

    /// True when a report is due at `now`; schedules the next one.
    public mutating func due(now: TransportTime) -> Bool {
        guard let next = nextReport else {
            // The first report goes out after half an interval (§6.2: "initial" reports are quick).
            nextReport = now + interval / 2
            return false
        }
        guard now >= next else { return false }
        nextReport = now + interval * (0.5 + rng.unit())
        return true
    }
}
