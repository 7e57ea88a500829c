/// Receiver-side loss tracking for generic NACK (RFC 4585 §6.2.1, §3.5.3 "early feedback").
///
/// A sequence number is missing when a higher one arrives first. Each missing number is asked for
/// once it has stayed missing for `reorderTolerance` (a packet merely overtaken on the way arrives within
/// a few ms; asking at once made every reordered packet cost a NACK and a retransmission), then again
/// every `retryInterval(rtt)` (the answer needs a round trip; asking sooner only
/// duplicates retransmissions), until it arrives, `maxRetries` requests were sent, or it is older
/// than `maxAge` — then it is given up and reported, so the jitter buffer can stop waiting.
/// A jump of more than `maxMissing` packets is not NACKed at all (the sender's history cannot
/// hold it); the caller should ask for a keyframe instead.
public struct NackGenerator: Sendable {
    public struct Configuration: Sendable {
        public var maxRetries = 10
        public var maxAge: Duration = .milliseconds(1_000)
        public var maxMissing = 500
        /// Floor of the retry interval, for tiny RTTs.
        public var minRetryInterval: Duration = .milliseconds(20)
        /// How long a gap may be reordering rather than loss before the first request.
        public var reorderTolerance: Duration = .milliseconds(10)
        public init() {}
    }

    private struct Missing: Sendable {
        var detected: TransportTime
        var lastSent: TransportTime?
        var tries: Int
        /// When the first request may go: after the reorder tolerance for a gap, at once for a suspected tail loss
        /// (its detector has already waited).
        var firstAsk: TransportTime
    }

    public var configuration: Configuration
    private var missing: [UInt64: Missing] = [:]
    private var highest: UInt64?
    public private(set) var requestsSent = 0
    public private(set) var recovered = 0
    public private(set) var givenUp = 0

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    public var missingCount: Int { missing.count }

    /// One RTT plus 10 %: the answer to the previous request had its chance to arrive.
    func retryInterval(rtt: Duration) -> Duration { max(rtt * 11 / 10, configuration.minRetryInterval) }

    /// Records an arrival. Returns false when the jump was too large to NACK (ask for a keyframe).
    @discardableResult
    public mutating func received(_ sequence: ExtendedSequenceNumber, now: TransportTime) -> Bool {
        let seq = sequence.rawValue
        if missing.removeValue(forKey: seq) != nil { recovered += 1 }
        guard let h = highest else { highest = seq; return true }
        if seq <= h { return true }
        highest = seq
        let gap = seq - h - 1
        guard gap > 0 else { return true }
        guard gap <= UInt64(configuration.maxMissing) else {
            givenUp += missing.count
            missing.removeAll()
            return false
        }
        for s in (h + 1)..<seq {
            missing[s] = Missing(detected: now, lastSent: nil, tries: 0, firstAsk: now + configuration.reorderTolerance)
        }
        return true
    }

    /// Treats a number not yet seen past the highest as missing (a suspected tail loss, see
    /// `TailLossDetector`); it is asked for like any other missing packet.
    public mutating func suspect(_ sequence: ExtendedSequenceNumber, now: TransportTime) {
        let seq = sequence.rawValue
        guard let h = highest, seq > h, missing[seq] == nil, missing.count < configuration.maxMissing else { return }
        missing[seq] = Missing(detected: now, lastSent: nil, tries: 0, firstAsk: now)
    }

    /// The sequence numbers to NACK now, and those just given up.
    public mutating func poll(now: TransportTime, rtt: Duration) -> (request: [ExtendedSequenceNumber], gaveUp: [ExtendedSequenceNumber]) {
        var request: [ExtendedSequenceNumber] = []
        var gaveUp: [ExtendedSequenceNumber] = []
        let interval = retryInterval(rtt: rtt)
        for seq in missing.keys.sorted() {
            guard var m = missing[seq] else { continue }
            if m.tries >= configuration.maxRetries || now - m.detected > configuration.maxAge {
                missing.removeValue(forKey: seq)
                gaveUp.append(ExtendedSequenceNumber(seq))
                givenUp += 1
                continue
            }
            if let last = m.lastSent, now - last < interval { continue }
            if m.lastSent == nil, now < m.firstAsk { continue }
            m.lastSent = now
            m.tries += 1
            missing[seq] = m
            request.append(ExtendedSequenceNumber(seq))
        }
        requestsSent += request.count
        return (request, gaveUp)
    }

    /// Stop asking for anything at or before `sequence` (e.g. a keyframe after it was decoded).
    public mutating func forget(through sequence: ExtendedSequenceNumber) {
        for key in missing.keys where key <= sequence.rawValue { missing.removeValue(forKey: key) }
    }

    public func nextDeadline(rtt: Duration) -> TransportTime? {
        let interval = retryInterval(rtt: rtt)
        return missing.values.map { m in
            let retry = m.lastSent.map { $0 + interval } ?? m.firstAsk
            return min(retry, m.detected + configuration.maxAge + .nanoseconds(1))
        }.min()
    }
}
