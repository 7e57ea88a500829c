import EngineTransport
/// What the sender remembers about each packet it stamped with a transport-wide sequence number, so that transport
/// feedback can be turned into (send time, arrival time, size) per packet (docs/congestion-control.md).
///
/// A fixed ring: the last `capacity` packets, indexed by their 64-bit sequence number, so a feedback about older
/// packets (or a forged one) finds nothing instead of growing anything.
public struct SentPacketLog: Sendable {
    public struct Sent: Sendable, Equatable {
        public var sequence: UInt64
        public var sentAt: TransportTime
        public var size: Int
        /// The probe it was sent in (`ProbeCluster.id`), if any.
        public var probe: Int?
    }

    /// One packet as feedback reported it. `arrival` is on the receiver's clock (only differences between arrivals
    /// mean anything); nil when the feedback says it was not received.
    public struct Result: Sendable, Equatable {
        public var sent: Sent
        public var arrival: TransportTime?
    }

    /// About 4 s of packets at 1000 a second; feedback comes every 50-100 ms, so anything older is lost feedback.
    public static let capacity = 4096

    private var ring: [Sent?] = Array(repeating: nil, count: capacity)
    /// The next number to stamp (64-bit: it never wraps during a call).
    public private(set) var nextSequence: UInt64 = 0
    /// The feedback's reference time, unwrapped across messages (64 ms units).
    private var reference: Int64?

    public init() {}

    /// Takes the next sequence number for a packet of `size` bytes leaving at `now` (in probe `probe`); returns the
    /// 16 bits to stamp.
    public mutating func stamp(size: Int, now: TransportTime, probe: Int? = nil) -> UInt16 {
        let n = nextSequence
        ring[Int(n % UInt64(Self.capacity))] = Sent(sequence: n, sentAt: now, size: size, probe: probe)
        nextSequence += 1
        return UInt16(truncatingIfNeeded: n)
    }

    /// The packets `feedback` reports on, in sequence order, with their arrival times. Statuses for numbers never
    /// sent, or sent too long ago to be remembered, are skipped.
    public mutating func results(for feedback: TransportFeedback) -> [Result] {
        guard nextSequence > 0 else { return [] }
        // The base is the newest number with these 16 bits that we have sent (feedback never names the future).
        let newest = nextSequence - 1
        let back = UInt64(UInt16(truncatingIfNeeded: newest) &- feedback.baseSequence)
        guard back <= newest else { return [] }
        let base = newest - back
        // Unwrap the 24-bit reference time: the nearest value to the previous one (it wraps every 12 days).
        let raw = Int64(feedback.referenceTime)
        let modulus = Int64(TransportFeedback.referenceTimeModulus)
        var unwrapped = raw
        if let previous = reference {
            var diff = (raw - previous) % modulus
            if diff >= modulus / 2 { diff -= modulus } else if diff < -modulus / 2 { diff += modulus }
            // Wrapping arithmetic: a peer sending reference times that jump half the range every message would
            // otherwise overflow 64 bits after some thousands of messages. Garbage in, garbage (no trap) out.
            unwrapped = previous &+ diff
        }
        reference = unwrapped
        var arrival = unwrapped &* TransportFeedback.referenceTimeUnit.nanoseconds
        var out: [Result] = []
        out.reserveCapacity(feedback.statuses.count)
        for (i, status) in feedback.statuses.enumerated() {
            let n = base + UInt64(i)
            var at: TransportTime?
            if case .received(let ticks) = status {
                arrival &+= Int64(ticks) * TransportFeedback.tick.nanoseconds
                at = TransportTime(nanoseconds: arrival)
            }
            guard n <= newest, let sent = ring[Int(n % UInt64(Self.capacity))], sent.sequence == n else { continue }
            out.append(Result(sent: sent, arrival: at))
        }
        return out
    }
}
