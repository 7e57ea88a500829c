import EngineTransport
/// Sender-side memory of recently sent RTP packets, to answer generic NACKs (RFC 4585 §6.2.1)
/// with plain retransmissions: the original packet, same SSRC and sequence number, as allowed
/// when RTX (RFC 4588) is not negotiated (conftui never negotiates it).
///
/// A ring of `capacity` slots indexed by sequence number modulo capacity (a power of two that
/// divides 65536, so the ring stays aligned across the wrap); entries older than `maxAge` are not
/// resent, and one packet is resent at most once per 3/4 RTT (a second NACK sooner than that was
/// sent before our first answer could arrive; the receiver retries after about one RTT), and never
/// twice within `RTPLimits.minRetransmissionSpacing` whatever RTT is claimed.
///
/// The retransmission budget (`RTPLimits.retransmission*`): per `retransmissionInterval`, resent bytes
/// stay below `retransmissionFloorBytes` plus `retransmissionShareOfSendRate` of what was sent over the
/// last second (spread per interval), and, with a send-side estimate, below half of it. NACKs beyond it are not answered (counted in `overBudget`); the
/// receiver asks again or falls back to a keyframe request.
public struct SendHistory: Sendable {
    private struct Entry: Sendable {
        var sequence: UInt16
        var bytes: [UInt8]
        var sentAt: TransportTime
        var lastResent: TransportTime?
    }

    public let capacity: Int
    public let maxAge: Duration
    private var ring: [Entry?]
    public private(set) var retransmitted = 0
    public private(set) var missed = 0
    /// Packets asked for but not resent because the interval's budget was spent.
    public private(set) var overBudget = 0
    /// Bytes sent per interval over the last second (a ring of 1 s / interval slots), for the budget.
    private var sentPerSlot: [Int]
    private var slotIndex: Int64?
    private var budgetSlot: Int64?
    private var budgetSpent = 0

    public init(capacity: Int = 512, maxAge: Duration = .seconds(1)) {
        precondition(capacity > 0 && capacity <= 65_536 && 65_536 % capacity == 0, "capacity must divide 65536")
        self.capacity = capacity
        self.maxAge = maxAge
        ring = Array(repeating: nil, count: capacity)
        sentPerSlot = Array(repeating: 0, count: Self.slots)
    }

    static let slots = Int(Duration.seconds(1) / RTPLimits.retransmissionInterval)

    private static func slot(_ now: TransportTime) -> Int64 {
        max(0, now.nanoseconds) / RTPLimits.retransmissionInterval.nanoseconds
    }

    /// Moves the send-rate ring to `now`'s slot, clearing the slots skipped.
    private mutating func advance(to now: TransportTime) {
        let s = Self.slot(now)
        if let current = slotIndex, s > current {
            for k in (current + 1)...min(s, current + Int64(Self.slots)) { sentPerSlot[Int(k % Int64(Self.slots))] = 0 }
        }
        if slotIndex.map({ s > $0 }) ?? true { slotIndex = s }
    }

    public mutating func record(_ sequence: SequenceNumber, bytes: [UInt8], now: TransportTime) {
        ring[Int(sequence.rawValue) % capacity] = Entry(sequence: sequence.rawValue, bytes: bytes, sentAt: now)
        advance(to: now)
        if let s = slotIndex { sentPerSlot[Int(s % Int64(Self.slots))] += bytes.count }
    }

    /// Bytes retransmissions may use in one interval now; `estimate` (bits per second, the send-side estimate when
    /// there is one) caps it at `RTPLimits.retransmissionShareOfEstimate` of what the path is thought to carry.
    public func budget(now: TransportTime, estimate: Int? = nil) -> Int {
        let lastSecond = sentPerSlot.reduce(0, +)
        let budget = RTPLimits.retransmissionFloorBytes
            + Int(Double(lastSecond) * RTPLimits.retransmissionShareOfSendRate) / Self.slots
        guard let estimate else { return budget }
        let interval = Double(RTPLimits.retransmissionInterval.nanoseconds) / 1e9
        let share = Double(max(estimate, 0)) * RTPLimits.retransmissionShareOfEstimate * interval / 8
        return max(Self.onePacket, Int(min(share, Double(budget))))   // the floor keeps budget above one packet
    }

    /// The least a capped budget still allows per interval: one full packet.
    static let onePacket = 1200

    /// The packets to resend for a NACK, in the order asked.
    public mutating func retransmissions(for sequences: [SequenceNumber], now: TransportTime, rtt: Duration,
                                         estimate: Int? = nil) -> [[UInt8]] {
        advance(to: now)
        let s = Self.slot(now)
        if budgetSlot != s {
            budgetSlot = s
            budgetSpent = 0
        }
        let allowance = budget(now: now, estimate: estimate)
        let spacing = max(rtt * 3 / 4, RTPLimits.minRetransmissionSpacing)
        var out: [[UInt8]] = []
        for seq in sequences {
            let i = Int(seq.rawValue) % capacity
            guard var e = ring[i], e.sequence == seq.rawValue, now - e.sentAt <= maxAge else { missed += 1; continue }
            if let last = e.lastResent, now - last < spacing { continue }
            guard budgetSpent + e.bytes.count <= allowance else { overBudget += 1; continue }
            budgetSpent += e.bytes.count
            e.lastResent = now
            ring[i] = e
            out.append(e.bytes)
            retransmitted += 1
        }
        return out
    }
}
