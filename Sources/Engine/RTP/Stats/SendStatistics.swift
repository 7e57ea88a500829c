import EngineTransport
/// What a sender knows about its own stream: counts for the SR sender info (RFC 3550 §6.4.1:
/// packet count, payload octet count), the RTP/NTP mapping for the SR timestamp, and what the
/// peer's report blocks say (loss, jitter, RTT from LSR/DLSR).
public struct SendStatistics: Sendable {
    public let ssrc: SSRC
    public let clockRate: Int
    public private(set) var packetsSent: UInt32 = 0
    public private(set) var payloadOctetsSent: UInt32 = 0
    public private(set) var retransmissionsSent = 0
    private var lastRTP: (timestamp: UInt32, time: TransportTime)?
    private var bitrate = RateWindow()
    public private(set) var roundTripTime: Duration?
    public private(set) var remoteFractionLost: UInt8 = 0
    public private(set) var remoteCumulativeLost: Int32 = 0
    public private(set) var remoteJitter: UInt32 = 0

    public init(ssrc: SSRC, clockRate: Int) { self.ssrc = ssrc; self.clockRate = clockRate }

    public mutating func recordSent(_ packet: RTPPacket, size: Int, now: TransportTime) {
        packetsSent &+= 1
        payloadOctetsSent &+= UInt32(truncatingIfNeeded: packet.payload.count)
        lastRTP = (packet.timestamp, now)
        bitrate.add(bytes: size, now: now)
    }

    public mutating func recordRetransmission(size: Int, now: TransportTime) {
        retransmissionsSent += 1
        bitrate.add(bytes: size, now: now)
    }

    public mutating func bitsPerSecond(now: TransportTime) -> Double { bitrate.bitsPerSecond(now: now) }

    /// Takes the peer's report block about this stream; returns the RTT it yields.
    @discardableResult
    public mutating func record(_ block: ReportBlock, now: TransportTime, ntpEpochSeconds: UInt64) -> Duration? {
        remoteFractionLost = block.fractionLost
        remoteCumulativeLost = block.cumulativeLost
        remoteJitter = block.jitter
        if let rtt = block.roundTripTime(arrival: NTPTimestamp(now, epochSeconds: ntpEpochSeconds)) { roundTripTime = rtt }
        return roundTripTime
    }

    /// The SR for `now`: the RTP timestamp is extrapolated from the last packet sent, so it
    /// names the same instant as the NTP timestamp (§6.4.1).
    public func makeSenderReport(now: TransportTime, ntpEpochSeconds: UInt64, reportBlocks: [ReportBlock] = []) -> SenderReport {
        var rtp: UInt32 = 0
        if let last = lastRTP {
            let ticks = Int64((now - last.time) / .seconds(1) * Double(clockRate))
            rtp = last.timestamp &+ UInt32(truncatingIfNeeded: ticks)
        }
        return SenderReport(ssrc: ssrc, ntpTimestamp: NTPTimestamp(now, epochSeconds: ntpEpochSeconds), rtpTimestamp: rtp,
                            packetCount: packetsSent, octetCount: payloadOctetsSent, reportBlocks: reportBlocks)
    }
}
