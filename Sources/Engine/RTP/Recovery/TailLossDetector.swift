import EngineTransport
/// Detects the loss of the *last* packet(s) of a video frame early.
///
/// A gap shows only when a later packet arrives; the last packet of a frame (the one with the
/// marker bit, RFC 3550 §5.1 / RFC 7741 §4.1) is followed by nothing until the next frame, one
/// frame interval later (67 ms at 15 fps), so its loss costs a frame interval more than any other.
/// When the newest packet has no marker and nothing has followed it for `timeout`, the next
/// sequence number is reported as suspect so the receiver can NACK it. If that packet was never
/// sent, the sender's history has nothing under that number and the NACK costs nothing.
///
/// `timeout` follows the packet spacing inside frames (senders pace, e.g. Chrome at 2.5x the
/// bitrate): three times the smoothed gap between packets of one frame, within 10...60 ms.
public struct TailLossDetector: Sendable {
    private var newest: (sequence: ExtendedSequenceNumber, marker: Bool, timestamp: UInt32, arrival: TransportTime)?
    private var probed: ExtendedSequenceNumber?
    /// Smoothed gap between consecutive packets of one frame, seconds.
    private var intraFrameGap = 0.005
    public private(set) var probes = 0

    public init() {}

    public var timeout: Duration {
        let t = Duration.nanoseconds(Int64(intraFrameGap * 3e9))
        return min(max(t, .milliseconds(10)), .milliseconds(60))
    }

    public mutating func received(_ sequence: ExtendedSequenceNumber, marker: Bool, timestamp: UInt32, now: TransportTime) {
        if let n = newest {
            guard sequence > n.sequence else { return }
            if sequence == n.sequence + 1, timestamp == n.timestamp {
                intraFrameGap += ((now - n.arrival) / .seconds(1) - intraFrameGap) / 8
            }
        }
        newest = (sequence, marker, timestamp, now)
    }

    /// The sequence number to NACK now, at most once per newest packet.
    public mutating func poll(now: TransportTime) -> ExtendedSequenceNumber? {
        guard let n = newest, !n.marker, now - n.arrival >= timeout else { return nil }
        let suspect = n.sequence + 1
        guard probed != suspect else { return nil }
        probed = suspect
        probes += 1
        return suspect
    }

    public func nextDeadline() -> TransportTime? {
        guard let n = newest, !n.marker, probed != n.sequence + 1 else { return nil }
        return n.arrival + timeout
    }
}
