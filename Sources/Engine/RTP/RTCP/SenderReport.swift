import EngineTransport
/// RTCP SR (RFC 3550 §6.4.1), PT 200: sender info plus up to 31 report blocks.
public struct SenderReport: Equatable, Sendable {
    public var ssrc: SSRC
    public var ntpTimestamp: NTPTimestamp
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reportBlocks: [ReportBlock]

    public init(ssrc: SSRC, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reportBlocks: [ReportBlock] = []) {
        self.ssrc = ssrc; self.ntpTimestamp = ntpTimestamp; self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount; self.octetCount = octetCount; self.reportBlocks = reportBlocks
    }

    static func parse(header: RTCPHeader, body r: inout ByteReader) throws(EngineError) -> SenderReport {
        guard let ssrc = r.u32(), let ntp = r.u64(), let rtp = r.u32(), let pc = r.u32(), let oc = r.u32() else {
            throw .malformed(what: "RTCP SR", reason: "truncated sender info")
        }
        var blocks: [ReportBlock] = []
        for _ in 0..<header.countOrFormat {
            guard let b = ReportBlock.parse(&r) else { throw .malformed(what: "RTCP SR", reason: "truncated report block") }
            blocks.append(b)
        }
        // Anything left is a profile-specific extension (§6.4.1): ignored.
        return SenderReport(ssrc: SSRC(ssrc), ntpTimestamp: NTPTimestamp(rawValue: ntp), rtpTimestamp: rtp,
                            packetCount: pc, octetCount: oc, reportBlocks: blocks)
    }

    func write(_ w: inout WireWriter) {
        let blocks = reportBlocks.prefix(31)
        RTCPHeader.write(&w, countOrFormat: UInt8(blocks.count), packetType: RTCPPacketType.senderReport,
                         bodySize: 24 + blocks.count * ReportBlock.size)
        w.u32(ssrc.rawValue); w.u64(ntpTimestamp.rawValue); w.u32(rtpTimestamp); w.u32(packetCount); w.u32(octetCount)
        for b in blocks { b.write(&w) }
    }
}
