import EngineTransport
/// FIR (RFC 5104 §4.3.1): payload-specific feedback PT 206, FMT 4. The media SSRC field is 0
/// ("SHALL be set to 0"); each FCI entry names the target SSRC and a command sequence number
/// that a repeated request keeps and a new request increments.
public struct FullIntraRequest: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var ssrc: SSRC
        public var sequenceNumber: UInt8
        public init(ssrc: SSRC, sequenceNumber: UInt8) { self.ssrc = ssrc; self.sequenceNumber = sequenceNumber }
    }

    static let format: UInt8 = 4
    public var senderSSRC: SSRC
    public var entries: [Entry]

    public init(senderSSRC: SSRC, entries: [Entry]) { self.senderSSRC = senderSSRC; self.entries = entries }

    static func parse(body r: inout ByteReader) throws(EngineError) -> FullIntraRequest {
        guard let s = r.u32(), r.u32() != nil else { throw .malformed(what: "RTCP FIR", reason: "truncated") }
        var entries: [Entry] = []
        while r.remaining >= 8, let ssrc = r.u32(), let seq = r.u8(), r.skip(3) {
            entries.append(Entry(ssrc: SSRC(ssrc), sequenceNumber: seq))
        }
        guard !entries.isEmpty else { throw .malformed(what: "RTCP FIR", reason: "no FCI entry") }
        return FullIntraRequest(senderSSRC: SSRC(s), entries: entries)
    }

    func write(_ w: inout WireWriter) {
        RTCPHeader.write(&w, countOrFormat: Self.format, packetType: RTCPPacketType.payloadFeedback,
                         bodySize: 8 + 8 * entries.count)
        w.u32(senderSSRC.rawValue); w.u32(0)
        for e in entries { w.u32(e.ssrc.rawValue); w.u8(e.sequenceNumber); w.zeros(3) }
    }
}
