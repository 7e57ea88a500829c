import EngineTransport
/// Receiver-side loss tracking for generic NACK (RFC 4585 §6.2.1, §3.5.3 "early feedback").
///
/// A sequence number is missing when a higher one arrives first. Each missing number is asked for
/// once it has stayed missing for `reorderTolerance` (a packet merely overtaken on the way arrives within
/// a few ms; asking at once made every reordered packet cost a NACK and a retransmission), then again
/// every `retryInterval(rtt)` (the answer needs a round trip; asking sooner only
/// duplicates retransmissions), until it arrives, `maxRetries` requests were sent, or it is older
/// than `maxAge` — then it is given up and reported, so the jitter buffer can stop waiting.
///
/// Bounded (`RTPLimits.maxMissingPackets`): a jump of more than `maxMissing` packets is not NACKed at all
/// (the sender's history cannot hold it; the caller should ask for a keyframe instead), and the missing list
/// holds at most `maxMissing` numbers over all gaps together: the oldest are given up first. Missing numbers
/// are only ever added above the highest seen, so the list is kept in sequence order by appending: no sort, and
/// `poll` costs one pass over at most `maxMissing` entries.
public struct NackGenerator: Sendable {
    public struct Configuration: Sendable {
        public var maxRetries = 10
        public var maxAge: Duration = .milliseconds(1_000)
        /// Both the largest gap worth NACKing and the total of missing numbers tracked.
        public var maxMissing = RTPLimits.maxMissingPackets
        /// Floor of the retry interval, for tiny RTTs.
        public var minRetryInterval: Duration = .milliseconds(20)
        /// How long a gap may be reordering rather than loss before the first request.
        public var reorderTolerance: Duration = .milliseconds(10)
        public init() {}
    }

    private struct Missing: Sendable {
        var sequence: UInt64
        var detected: TransportTime
        var lastSent: TransportTime?
        var tries: Int
        /// When the first request may go: after the reorder tolerance for a gap, at once for a suspected tail loss
        /// (its detector has already waited).
        var firstAsk: TransportTime
        /// Arrived, given up or forgotten: skipped, and dropped when it reaches the front.
        var done = false
    }

    public var configuration: Configuration
    /// Ascending sequence order; `entries[head...]` is live, with `done` tombstones in between.
    private var entries: [Missing] = []
    private var head = 0
    private var live = 0
    /// Numbers evicted to keep the bound, reported by the next `poll` (at most `maxMissing` of them).
    private var evicted: [UInt64] = []
    /// The earliest moment `poll` has anything to do, as of the last full pass with that RTT (nil: nothing tracked);
    /// new entries only make it earlier. `poll` runs per received packet, and returns at once before it.
    private var due: (rtt: Duration, at: TransportTime?)?
    private var highest: UInt64?
    public private(set) var requestsSent = 0
    public private(set) var recovered = 0
    public private(set) var givenUp = 0

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    public var missingCount: Int { live }
    /// Slots held, tombstones included (tests check this stays bounded too).
    var storageCount: Int { entries.count - head }

    /// One RTT plus 10 %: the answer to the previous request had its chance to arrive.
    func retryInterval(rtt: Duration) -> Duration { max(rtt * 11 / 10, configuration.minRetryInterval) }

    /// Index of `seq` among the live entries (binary search), if tracked.
    private func index(of seq: UInt64) -> Int? {
        var lo = head, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].sequence < seq { lo = mid + 1 } else { hi = mid }
        }
        return lo < entries.count && entries[lo].sequence == seq && !entries[lo].done ? lo : nil
    }

    private mutating func retire(_ i: Int) {
        entries[i].done = true
        live -= 1
    }

    /// Drops tombstones at the front; compacts the array once half of it is dead space.
    private mutating func trim() {
        while head < entries.count && entries[head].done { head += 1 }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        // Tombstones in the middle are bounded too: compact when they outnumber the live entries.
        if entries.count - head > 2 * configuration.maxMissing + 64 {
            entries = entries[head...].filter { !$0.done }
            head = 0
        }
    }

    private mutating func append(_ m: Missing) {
        if let d = due { due = (d.rtt, min(d.at ?? m.firstAsk, m.firstAsk)) }
        entries.append(m)
        live += 1
        // The total bound: give up the oldest live numbers first.
        while live > configuration.maxMissing, head < entries.count {
            if !entries[head].done {
                retire(head)
                givenUp += 1
                // Reported by the next poll; past `maxMissing` unreported ones the jitter buffer's hold time covers them.
                if evicted.count < configuration.maxMissing { evicted.append(entries[head].sequence) }
            }
            head += 1
        }
        trim()
    }

    /// Records an arrival. Returns false when the jump was too large to NACK (ask for a keyframe).
    @discardableResult
    public mutating func received(_ sequence: ExtendedSequenceNumber, now: TransportTime) -> Bool {
        let seq = sequence.rawValue
        if let i = index(of: seq) {
            retire(i)
            recovered += 1
            trim()
        }
        guard let h = highest else { highest = seq; return true }
        if seq <= h { return true }
        highest = seq
        let gap = seq - h - 1
        guard gap > 0 else { return true }
        guard gap <= UInt64(configuration.maxMissing) else {
            due = nil
            givenUp += live
            entries.removeAll(keepingCapacity: true)
            head = 0
            live = 0
            return false
        }
        // Suspected tail losses (`suspect`) sit above the old highest at the end of the list: take them off, so the
        // list stays in order and each number appears once. One inside the gap becomes an ordinary missing number
        // (as a plain gap would have made it); those above the new highest go back after it.
        var suspects: [Missing] = []
        while entries.count > head, let last = entries.last, last.sequence > h {
            entries.removeLast()
            if !last.done { live -= 1; suspects.append(last) }
        }
        for s in (h + 1)..<seq {
            append(Missing(sequence: s, detected: now, lastSent: nil, tries: 0, firstAsk: now + configuration.reorderTolerance))
        }
        for m in suspects.reversed() where m.sequence > seq { append(m) }
        return true
    }

    /// Treats a number not yet seen past the highest as missing (a suspected tail loss, see
    /// `TailLossDetector`); it is asked for like any other missing packet.
    public mutating func suspect(_ sequence: ExtendedSequenceNumber, now: TransportTime) {
        let seq = sequence.rawValue
        guard let h = highest, seq > h, live < configuration.maxMissing else { return }
        // Suspects are above the highest seen: in order unless an earlier suspect was higher.
        if let last = entries.last, entries.count > head, last.sequence >= seq { return }
        append(Missing(sequence: seq, detected: now, lastSent: nil, tries: 0, firstAsk: now))
    }

    /// The sequence numbers to NACK now, and those just given up (in sequence order).
    public mutating func poll(now: TransportTime, rtt: Duration) -> (request: [ExtendedSequenceNumber], gaveUp: [ExtendedSequenceNumber]) {
        if evicted.isEmpty, let d = due, d.rtt == rtt, d.at.map({ now < $0 }) ?? true { return ([], []) }
        var request: [ExtendedSequenceNumber] = []
        var gaveUp: [ExtendedSequenceNumber] = evicted.map { ExtendedSequenceNumber($0) }
        evicted.removeAll(keepingCapacity: true)
        let interval = retryInterval(rtt: rtt)
        var i = head
        while i < entries.count {
            defer { i += 1 }
            if entries[i].done { continue }
            let m = entries[i]
            if m.tries >= configuration.maxRetries || now - m.detected > configuration.maxAge {
                retire(i)
                gaveUp.append(ExtendedSequenceNumber(m.sequence))
                givenUp += 1
                continue
            }
            if let last = m.lastSent, now - last < interval { continue }
            if m.lastSent == nil, now < m.firstAsk { continue }
            entries[i].lastSent = now
            entries[i].tries += 1
            request.append(ExtendedSequenceNumber(m.sequence))
        }
        trim()
        due = (rtt, computeDeadline(interval: interval))
        requestsSent += request.count
        return (request, gaveUp)
    }

    /// Stop asking for anything at or before `sequence` (e.g. a keyframe after it was decoded).
    public mutating func forget(through sequence: ExtendedSequenceNumber) {
        while head < entries.count && entries[head].sequence <= sequence.rawValue {
            if !entries[head].done { live -= 1 }
            head += 1
        }
        trim()
    }

    public func nextDeadline(rtt: Duration) -> TransportTime? {
        if !evicted.isEmpty { return .zero }   // to report at once
        if let d = due, d.rtt == rtt { return d.at }
        return computeDeadline(interval: retryInterval(rtt: rtt))
    }

    private func computeDeadline(interval: Duration) -> TransportTime? {
        var best: TransportTime?
        for m in entries[head...] where !m.done {
            let retry = m.lastSent.map { $0 + interval } ?? m.firstAsk
            let due = min(retry, m.detected + configuration.maxAge + .nanoseconds(1))
            if best.map({ due < $0 }) ?? true { best = due }
        }
        return best
    }
}
