import EngineTransport
/// What a receiver knows about one remote SSRC, and the report block it sends back
/// (RFC 3550 §6.4.1 with the algorithms of Appendix A.1, A.3 and A.8).
///
/// No probation (A.1's MIN_SEQUENTIAL): SRTP authentication already tells us the source is real.
/// Jitter is updated only by packets that advance the highest sequence number, so a
/// retransmission (sent late on purpose, same SSRC/seq without RTX) does not inflate it.
public struct ReceiveStatistics: Sendable {
    public let ssrc: SSRC
    public let clockRate: Int

    private var unwrapper = SequenceUnwrapper()
    private var baseSequence: UInt64?
    private var highestSequence: UInt64 = 0
    public private(set) var packetsReceived: UInt64 = 0
    public private(set) var bytesReceived: UInt64 = 0
    private var expectedPrior: UInt64 = 0
    private var receivedPrior: UInt64 = 0
    private var lastTransit: Double?
    /// A.8 interarrival jitter, in timestamp units.
    public private(set) var jitter: Double = 0
    private var bitrate = RateWindow()
    private var lastSenderReport: (middle: UInt32, arrival: TransportTime)?
    public private(set) var lastFractionLost: UInt8 = 0

    public init(ssrc: SSRC, clockRate: Int) { self.ssrc = ssrc; self.clockRate = clockRate }

    /// Records a packet; returns its extended sequence number.
    @discardableResult
    public mutating func record(_ packet: RTPPacket, size: Int, now: TransportTime) -> ExtendedSequenceNumber {
        let ext = unwrapper.unwrap(packet.sequenceNumber)
        packetsReceived += 1
        bytesReceived += UInt64(size)
        bitrate.add(bytes: size, now: now)
        if baseSequence == nil { baseSequence = ext.rawValue; highestSequence = ext.rawValue }
        if ext.rawValue >= highestSequence {
            // A.8: transit = arrival (in timestamp units) - RTP timestamp; J += (|D| - J) / 16.
            let arrival = now.seconds * Double(clockRate)
            let transit = arrival - Double(packet.timestamp)
            if let last = lastTransit {
                var d = abs(transit - last)
                // A timestamp wrap shows as a jump of 2^32 units; fold it back.
                if d > 2_147_483_648 { d = abs(d - 4_294_967_296) }
                jitter += (d - jitter) / 16
            }
            lastTransit = transit
            highestSequence = ext.rawValue
        }
        if let base = baseSequence, ext.rawValue < base { baseSequence = ext.rawValue }
        return ext
    }

    /// Records an SR from this source (for LSR/DLSR in our next report block).
    public mutating func record(_ sr: SenderReport, now: TransportTime) {
        lastSenderReport = (sr.ntpTimestamp.middle32, now)
    }

    /// A.3: packets expected since the first one.
    public var expected: UInt64 {
        guard let base = baseSequence else { return 0 }
        return highestSequence - base + 1
    }

    public var cumulativeLost: Int64 { Int64(expected) - Int64(packetsReceived) }

    public var jitterSeconds: Double { jitter / Double(clockRate) }

    public mutating func bitsPerSecond(now: TransportTime) -> Double { bitrate.bitsPerSecond(now: now) }

    /// A report block for the interval since the previous one (A.3 fraction lost).
    public mutating func makeReportBlock(now: TransportTime) -> ReportBlock? {
        guard baseSequence != nil else { return nil }
        let expectedInterval = Int64(expected) - Int64(expectedPrior)
        let receivedInterval = Int64(packetsReceived) - Int64(receivedPrior)
        expectedPrior = expected
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval == 0 || lostInterval <= 0 ? 0 : UInt8(min(255, (lostInterval << 8) / expectedInterval))
        lastFractionLost = fraction
        var lsr: UInt32 = 0, dlsr: UInt32 = 0
        if let sr = lastSenderReport {
            lsr = sr.middle
            let delay = now - sr.arrival
            dlsr = UInt32(clamping: Int64((max(0, delay / .seconds(1)) * 65_536).rounded()))
        }
        // The unwrapper starts in cycle 1; the wire value counts cycles from 0 (A.1).
        let wireHighest = UInt32(truncatingIfNeeded: highestSequence - (1 << 16))
        return ReportBlock(ssrc: ssrc, fractionLost: fraction, cumulativeLost: Int32(clamping: cumulativeLost),
                           extendedHighestSequence: wireHighest, jitter: UInt32(clamping: Int64(jitter)),
                           lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
