import EngineTransport
/// The sending half of one Opus stream: 20 ms Opus packets in, RTP packets out (RFC 7587), an
/// SR+SDES compound about once a second. No retransmission: a late audio frame is useless, Opus
/// in-band FEC covers single losses instead.
public struct AudioSendStream: Sendable {
    public let ssrc: SSRC
    public let payloadType: PayloadType
    public let cname: String
    public var ntpEpochSeconds: UInt64 = NTPTimestamp.defaultEpochSeconds
    public var headerExtensions: RTPHeaderExtensions?
    private var packetizer: OpusPacketizer
    private var sequence: SequenceNumber
    public private(set) var statistics: SendStatistics
    private var reports: ReportScheduler

    public init(ssrc: SSRC, payloadType: PayloadType, cname: String, initialSequenceNumber: UInt16 = 0,
                initialTimestamp: UInt32 = 0) {
        self.ssrc = ssrc; self.payloadType = payloadType; self.cname = cname
        packetizer = OpusPacketizer(initialTimestamp: initialTimestamp)
        sequence = SequenceNumber(initialSequenceNumber)
        statistics = SendStatistics(ssrc: ssrc, clockRate: Int(OpusPacketizer.clockRate))
        reports = ReportScheduler(seed: UInt64(ssrc.rawValue))
    }

    /// The RTP packet for the next 20 ms, or nil when DTX says nothing needs sending.
    public mutating func send(opusPacket: [UInt8], isDTX: Bool, now: TransportTime) -> [UInt8]? {
        guard let next = packetizer.next(packet: opusPacket, isDTX: isDTX) else { return nil }
        let packet = RTPPacket(marker: next.marker, payloadType: payloadType, sequenceNumber: sequence,
                               timestamp: next.timestamp, ssrc: ssrc, headerExtensions: headerExtensions, payload: next.payload)
        sequence = sequence.next
        let bytes = packet.serialized()
        statistics.recordSent(packet, size: bytes.count, now: now)
        return bytes
    }

    public mutating func handleRTCP(_ packets: [RTCPPacket], now: TransportTime) {
        for case .receiverReport(let rr) in packets {
            for b in rr.reportBlocks where b.ssrc == ssrc { statistics.record(b, now: now, ntpEpochSeconds: ntpEpochSeconds) }
        }
    }

    public mutating func pollReport(now: TransportTime) -> [UInt8]? {
        guard reports.due(now: now) else { return nil }
        return RTCPPacket.compound([.senderReport(statistics.makeSenderReport(now: now, ntpEpochSeconds: ntpEpochSeconds)),
                                    .sourceDescription(SourceDescription(ssrc: ssrc, cname: cname))])
    }
}
