import EngineTransport
/// One probe (docs/congestion-control.md §5): a short burst of packets paced at `bitsPerSecond`, above the current
/// estimate, whose arrival rate at the receiver (from transport feedback) shows whether the path carries that much.
/// The estimator decides when and how fast (`ProbeController`); the caller sends padding-only packets (RFC 3550 §5.1)
/// as `bytesDue` allows, stamps every packet it sends meanwhile with `id`, and reports the end with `probeSent`.
public struct ProbeCluster: Sendable, Equatable {
    public let id: Int
    public let bitsPerSecond: Int
    /// What the probe sends in all: `duration` at its rate, and never fewer than `minimumPackets` padding packets.
    public let bytes: Int
    public let startedAt: TransportTime

    /// Long enough for the arrival spread to measure a rate (feedback times are 250 µs ticks), short enough that a
    /// probe above a full link adds at most a few tens of milliseconds of queue (half of it at 1.5×).
    public static let duration: Duration = .milliseconds(30)
    public static let minimumPackets = 5
    /// A padding-only packet's padding: the RTP padding count is one byte (RFC 3550 §5.1), so at most 255 bytes.
    public static let paddingBytes = 255
    /// A padding packet's bytes on the wire beyond its padding: the RTP header with its extensions (about 30) and
    /// what the estimator counts for SRTP, UDP and IP (`SendSideBandwidthEstimator.transportOverheadBytes`), for
    /// sizing a probe in packets. The caller counts the same per packet sent.
    static let packetOverhead = 30 + SendSideBandwidthEstimator.transportOverheadBytes

    init(id: Int, bitsPerSecond: Int, startedAt: TransportTime) {
        self.id = id
        self.bitsPerSecond = bitsPerSecond
        self.startedAt = startedAt
        let byDuration = Int(Double(bitsPerSecond) / 8 * Double(Self.duration.nanoseconds) / 1e9)
        bytes = max(byDuration, Self.minimumPackets * (Self.paddingBytes + Self.packetOverhead))
    }

    /// Bytes the probe should have put on the wire by `now`: its rate since the start, plus one packet so the first
    /// leaves at once.
    public func bytesDue(now: TransportTime) -> Int {
        let elapsed = Double(max(now - startedAt, .zero).nanoseconds) / 1e9
        return min(bytes, Int(Double(bitsPerSecond) / 8 * elapsed) + Self.paddingBytes + Self.packetOverhead)
    }

    /// When more than `sent` bytes will be due, for the caller's timer (always after the time `sent` became due).
    public func dueAt(sent: Int) -> TransportTime {
        let ahead = max(sent + 1 - Self.paddingBytes - Self.packetOverhead, 0)
        // Rounded up, and a microsecond on, so `bytesDue` at that time has certainly moved past `sent`.
        return startedAt + .nanoseconds(Int64((Double(ahead) * 8 / Double(max(bitsPerSecond, 1)) * 1e9).rounded(.up)) + 1000)
    }
}
