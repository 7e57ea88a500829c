import EngineTransport
/// PLI (RFC 4585 §6.3.1): payload-specific feedback PT 206, FMT 1, no FCI. "The receiver has
/// lost an undefined amount of coded video data": the sender answers with a keyframe.
public struct PictureLossIndication: Equatable, Sendable {
    static let format: UInt8 = 1
    public var senderSSRC: SSRC
    public var mediaSSRC: SSRC

    public init(senderSSRC: SSRC, mediaSSRC: SSRC) { self.senderSSRC = senderSSRC; self.mediaSSRC = mediaSSRC }

    static func parse(body r: inout ByteReader) throws(EngineError) -> PictureLossIndication {
        guard let s = r.u32(), let m = r.u32() else { throw .malformed(what: "RTCP PLI", reason: "truncated") }
        return PictureLossIndication(senderSSRC: SSRC(s), mediaSSRC: SSRC(m))
    }

    func write(_ w: inout WireWriter) {
        RTCPHeader.write(&w, countOrFormat: Self.format, packetType: RTCPPacketType.payloadFeedback, bodySize: 8)
        w.u32(senderSSRC.rawValue); w.u32(mediaSSRC.rawValue)
    }
}
