import EngineTransport
/// Groups packets into send bursts and measures how the delay of each group changed from the previous one
/// (the inter-arrival filter of Google congestion control, draft-ietf-rmcat-gcc-02 §5.2; docs/congestion-control.md).
///
/// A video frame leaves as a burst of packets within a few milliseconds; comparing single packets would measure the
/// pacing inside a burst, not the path. Packets sent within `burst` of a group's first packet belong to it; when a
/// group is complete, its last send and last arrival are compared with the previous group's:
///
///     delay variation = (arrival_i - arrival_i-1) - (send_i - send_i-1)
///
/// positive while a queue grows, negative while it drains. Only differences of the receiver's clock are used, so
/// the two clocks never need to agree.
struct PacketGroups: Sendable {
    struct Group: Sendable {
        var firstSend: TransportTime
        var lastSend: TransportTime
        var lastArrival: TransportTime
    }

    struct Delta: Sendable, Equatable {
        var sendMs: Double
        var arrivalMs: Double
        /// When the later group's last packet arrived (receiver's clock), in milliseconds.
        var atMs: Double
        var variationMs: Double { arrivalMs - sendMs }
    }

    /// "a burst of packets sent within 5 ms" (gcc-02 §5.2).
    static let burst: Duration = .milliseconds(5)
    /// An arrival gap this long (or a negative one) means the receiver's clock or the path changed under us: the
    /// groups start over instead of feeding the filter a nonsense sample.
    static let maxArrivalGap: Duration = .seconds(3)

    private var current: Group?
    private var previous: Group?

    /// Adds one received packet (in send order); returns a delta when it completes a group that has a predecessor.
    mutating func add(sentAt: TransportTime, arrival: TransportTime) -> Delta? {
        guard var group = current else {
            current = Group(firstSend: sentAt, lastSend: sentAt, lastArrival: arrival)
            return nil
        }
        if sentAt - group.firstSend <= Self.burst, sentAt >= group.firstSend {
            group.lastSend = max(group.lastSend, sentAt)
            group.lastArrival = max(group.lastArrival, arrival)
            current = group
            return nil
        }
        defer { previous = group; current = Group(firstSend: sentAt, lastSend: sentAt, lastArrival: arrival) }
        guard let before = previous else { return nil }
        let arrivalGap = group.lastArrival - before.lastArrival
        guard arrivalGap >= .zero, arrivalGap <= Self.maxArrivalGap, group.lastSend >= before.lastSend else {
            previous = nil
            return nil
        }
        return Delta(sendMs: Self.ms(group.lastSend - before.lastSend), arrivalMs: Self.ms(arrivalGap),
                     atMs: Double(group.lastArrival.nanoseconds) / 1e6)
    }

    static func ms(_ d: Duration) -> Double { Double(d.nanoseconds) / 1e6 }
}
