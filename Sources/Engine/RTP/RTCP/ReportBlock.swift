import EngineTransport
/// One reception report block (RFC 3550 §6.4.1), 24 bytes.
public struct ReportBlock: Equatable, Sendable {
    public var ssrc: SSRC
    /// Fraction lost since the previous report, in 1/256.
    public var fractionLost: UInt8
    /// Cumulative packets lost, a signed 24-bit value (duplicates can make it negative).
    public var cumulativeLost: Int32
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received (0 if none).
    public var lastSenderReport: UInt32
    /// Delay since that SR in 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: SSRC, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32,
                jitter: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32) {
        self.ssrc = ssrc; self.fractionLost = fractionLost; self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence; self.jitter = jitter
        self.lastSenderReport = lastSenderReport; self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    static let size = 24

    static func parse(_ r: inout ByteReader) -> ReportBlock? {
        guard let ssrc = r.u32(), let fraction = r.u8(), let lost = r.u24(), let ehs = r.u32(),
              let jitter = r.u32(), let lsr = r.u32(), let dlsr = r.u32() else { return nil }
        // Sign-extend the 24-bit cumulative loss.
        let signed = Int32(bitPattern: lost << 8) >> 8
        return ReportBlock(ssrc: SSRC(ssrc), fractionLost: fraction, cumulativeLost: signed, extendedHighestSequence: ehs,
                           jitter: jitter, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    func write(_ w: inout WireWriter) {
        w.u32(ssrc.rawValue)
        w.u8(fractionLost)
        let clamped = min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)
        w.u24(UInt32(bitPattern: clamped) & 0xFF_FFFF)
        w.u32(extendedHighestSequence)
        w.u32(jitter)
        w.u32(lastSenderReport)
        w.u32(delaySinceLastSenderReport)
    }

    /// Round-trip time seen by the sender that receives this block (RFC 3550 §6.4.1:
    /// "A - LSR - DLSR"), nil when the peer has not received an SR yet (LSR = 0).
    public func roundTripTime(arrival: NTPTimestamp) -> Duration? {
        guard lastSenderReport != 0 else { return nil }
        let a = arrival.middle32
        let rtt = Int64(Int32(bitPattern: a &- lastSenderReport &- delaySinceLastSenderReport))
        guard rtt >= 0 else { return .zero }
        return .nanoseconds(rtt * 1_000_000_000 / 65_536)
    }
}
