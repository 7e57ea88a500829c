import EngineTransport
/// The receiving half of one Opus stream: RTP packets in; every 20 ms one playout instruction out
/// (decode, FEC-recover, conceal; see `AudioJitterBuffer`), plus an RR+SDES about once a second.
///
///     stream.receive(rtpPacket, size: n, now: now)
///     every 20 ms: switch stream.pull(now: now) {
///         case .packet(let p): decoder.decode(p)            case .recoverFromNext(let p): decoder.recover(from: p)
///         case .conceal: decoder.conceal()                  case .silence: AudioFrame.silence }
public struct AudioReceiveStream: Sendable {
    public let localSSRC: SSRC
    public let remoteSSRC: SSRC
    public let cname: String
    public private(set) var buffer: AudioJitterBuffer
    public private(set) var statistics: ReceiveStatistics
    private var reports: ReportScheduler

    public init(localSSRC: SSRC, remoteSSRC: SSRC, cname: String,
                configuration: AudioJitterBuffer.Configuration = AudioJitterBuffer.Configuration()) {
        self.localSSRC = localSSRC; self.remoteSSRC = remoteSSRC; self.cname = cname
        buffer = AudioJitterBuffer(configuration: configuration)
        statistics = ReceiveStatistics(ssrc: remoteSSRC, clockRate: Int(OpusPacketizer.clockRate))
        reports = ReportScheduler(seed: UInt64(localSSRC.rawValue) << 2)
    }

    public mutating func receive(_ packet: RTPPacket, size: Int, now: TransportTime) {
        guard packet.ssrc == remoteSSRC else { return }
        statistics.record(packet, size: size, now: now)
        buffer.insert(packet, now: now)
    }

    public mutating func handleRTCP(_ packets: [RTCPPacket], now: TransportTime) {
        for case .senderReport(let sr) in packets where sr.ssrc == remoteSSRC { statistics.record(sr, now: now) }
    }

    public mutating func pull(now: TransportTime) -> AudioJitterBuffer.Pull { buffer.pull(now: now) }

    public mutating func pollReport(now: TransportTime) -> [UInt8]? {
        guard reports.due(now: now), let block = statistics.makeReportBlock(now: now) else { return nil }
        return RTCPPacket.compound([.receiverReport(ReceiverReport(ssrc: localSSRC, reportBlocks: [block])),
                                    .sourceDescription(SourceDescription(ssrc: localSSRC, cname: cname))])
    }
}
