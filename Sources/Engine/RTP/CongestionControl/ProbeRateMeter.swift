import EngineTransport
/// The rate a probe got through the path, from transport feedback on its packets (docs/congestion-control.md §5):
/// bytes over the spread of their arrivals, bounded by the rate they were sent at and by the probe's own rate. The first packet to arrive
/// only opens the receive interval and the last one sent only closes the send interval, so neither counts in the
/// bytes of its own interval.
///
/// A probe whose packets are mostly unreported or lost measures nothing (it gives no result rather than a low one):
/// loss is the loss rule's business. At most `maxClusters` probes are tracked; feedback naming an older or forged
/// cluster finds nothing.
struct ProbeRateMeter: Sendable {
    static let maxClusters = 4
    /// A probe whose feedback has not all come after this gives its result from what came (or none).
    static let resultTimeout: Duration = .seconds(1)
    /// At least this share of the probe's packets must be reported received.
    static let minimumReceivedShare = 0.8
    /// When the receive rate is clearly below the send rate, the path was the limit: the result is a little under
    /// what it carried, so the estimate does not sit exactly at the point where a queue starts.
    static let limitedShare = 0.9
    static let belowLimit = 0.95
    /// Spreads shorter than this are clock noise, not a rate.
    static let minimumSpread: Duration = .milliseconds(2)

    private struct Tally: Sendable {
        var id: Int
        var started: TransportTime
        /// The rate the probe's padding was paced at.
        var bitsPerSecond: Int
        var packetsSent: Int?
        var reported = 0
        var received = 0
        var sentBytes = 0
        var receivedBytes = 0
        var firstSend: TransportTime?
        var lastSend: (at: TransportTime, size: Int)?
        var firstArrival: (at: TransportTime, size: Int)?
        var lastArrival: TransportTime?
    }

    private var tallies: [Tally] = []

    mutating func started(id: Int, bitsPerSecond: Int, now: TransportTime) {
        if tallies.count >= Self.maxClusters { tallies.removeFirst() }
        tallies.append(Tally(id: id, started: now, bitsPerSecond: bitsPerSecond))
    }

    mutating func sent(id: Int, packets: Int) {
        guard let i = tallies.firstIndex(where: { $0.id == id }) else { return }
        tallies[i].packetsSent = packets
    }

    mutating func add(_ result: SentPacketLog.Result, cluster id: Int) {
        guard let i = tallies.firstIndex(where: { $0.id == id }) else { return }
        tallies[i].reported += 1
        let sent = result.sent
        tallies[i].sentBytes += sent.size
        if tallies[i].firstSend.map({ sent.sentAt < $0 }) ?? true { tallies[i].firstSend = sent.sentAt }
        if tallies[i].lastSend.map({ sent.sentAt >= $0.at }) ?? true { tallies[i].lastSend = (sent.sentAt, sent.size) }
        guard let arrival = result.arrival else { return }
        tallies[i].received += 1
        tallies[i].receivedBytes += sent.size
        if tallies[i].firstArrival.map({ arrival < $0.at }) ?? true { tallies[i].firstArrival = (arrival, sent.size) }
        if tallies[i].lastArrival.map({ arrival > $0 }) ?? true { tallies[i].lastArrival = arrival }
    }

    /// Probes whose feedback is complete (or overdue), each with the rate it measured (nil: none).
    mutating func takeResults(now: TransportTime) -> [(id: Int, bitsPerSecond: Int?)] {
        var out: [(id: Int, bitsPerSecond: Int?)] = []
        tallies.removeAll { t in
            let complete = t.packetsSent.map { t.reported >= $0 } ?? false
            guard complete || now - t.started >= Self.resultTimeout else { return false }
            out.append((t.id, Self.rate(of: t)))
            return true
        }
        return out
    }

    private static func rate(of t: Tally) -> Int? {
        guard let sent = t.packetsSent, sent > 0, Double(t.received) >= minimumReceivedShare * Double(sent),
              let firstSend = t.firstSend, let lastSend = t.lastSend, let firstArrival = t.firstArrival,
              let lastArrival = t.lastArrival else { return nil }
        let sendSpread = lastSend.at - firstSend, receiveSpread = lastArrival - firstArrival.at
        guard sendSpread >= minimumSpread, receiveSpread >= minimumSpread else { return nil }
        let sendRate = Double(t.sentBytes - lastSend.size) * 8 / (Double(sendSpread.nanoseconds) / 1e9)
        let receiveRate = Double(t.receivedBytes - firstArrival.size) * 8 / (Double(receiveSpread.nanoseconds) / 1e9)
        guard sendRate > 0, receiveRate > 0 else { return nil }
        let measured = receiveRate < limitedShare * sendRate ? belowLimit * receiveRate : min(sendRate, receiveRate)
        // Never more than the probe asked for: media sent meanwhile can take the packets out faster than the probe's
        // rate, and a shaper's token bucket lets such a burst through untouched (the path did not show it more).
        return Int(min(measured, Double(t.bitsPerSecond)))
    }
}
