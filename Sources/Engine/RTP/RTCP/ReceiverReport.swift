import EngineTransport
/// RTCP RR (RFC 3550 §6.4.2), PT 201: the reporter's SSRC and up to 31 report blocks.
public struct ReceiverReport: Equatable, Sendable {
    public var ssrc: SSRC
    public var reportBlocks: [ReportBlock]

    public init(ssrc: SSRC, reportBlocks: [ReportBlock] = []) { self.ssrc = ssrc; self.reportBlocks = reportBlocks }

    static func parse(header: RTCPHeader, body r: inout ByteReader) throws(EngineError) -> ReceiverReport {
        guard let ssrc = r.u32() else { throw .malformed(what: "RTCP RR", reason: "no SSRC") }
        var blocks: [ReportBlock] = []
        for _ in 0..<header.countOrFormat {
            guard let b = ReportBlock.parse(&r) else { throw .malformed(what: "RTCP RR", reason: "truncated report block") }
            blocks.append(b)
        }
        return ReceiverReport(ssrc: SSRC(ssrc), reportBlocks: blocks)
    }

    func write(_ w: inout WireWriter) {
        let blocks = reportBlocks.prefix(31)
        RTCPHeader.write(&w, countOrFormat: UInt8(blocks.count), packetType: RTCPPacketType.receiverReport,
                         bodySize: 4 + blocks.count * ReportBlock.size)
        w.u32(ssrc.rawValue)
        for b in blocks { b.write(&w) }
    }
}
