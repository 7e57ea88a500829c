/// Sender-side memory of recently sent RTP packets, to answer generic NACKs (RFC 4585 §6.2.1)
/// with plain retransmissions: the original packet, same SSRC and sequence number, as allowed
/// when RTX (RFC 4588) is not negotiated; `VideoSendStream` rewraps them as RTX packets
/// (`RTXPayload`) when it is.
///
/// A ring of `capacity` slots indexed by sequence number modulo capacity (a power of two that
/// divides 65536, so the ring stays aligned across the wrap); entries older than `maxAge` are not
/// resent, and one packet is resent at most once per 3/4 RTT (a second NACK sooner than that was
/// sent before our first answer could arrive; the receiver retries after about one RTT).
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

    public init(capacity: Int = 512, maxAge: Duration = .seconds(1)) {
        precondition(capacity > 0 && capacity <= 65_536 && 65_536 % capacity == 0, "capacity must divide 65536")
        self.capacity = capacity
        self.maxAge = maxAge
        ring = Array(repeating: nil, count: capacity)
    }

    public mutating func record(_ sequence: SequenceNumber, bytes: [UInt8], now: TransportTime) {
        ring[Int(sequence.rawValue) % capacity] = Entry(sequence: sequence.rawValue, bytes: bytes, sentAt: now)
    }

    /// The packets to resend for a NACK, in the order asked.
    public mutating func retransmissions(for sequences: [SequenceNumber], now: TransportTime, rtt: Duration) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for seq in sequences {
            let i = Int(seq.rawValue) % capacity
            guard var e = ring[i], e.sequence == seq.rawValue, now - e.sentAt <= maxAge else { missed += 1; continue }
            if let last = e.lastResent, now - last < rtt * 3 / 4 { continue }
            e.lastResent = now
            ring[i] = e
            out.append(e.bytes)
            retransmitted += 1
        }
        return out
    }
}
