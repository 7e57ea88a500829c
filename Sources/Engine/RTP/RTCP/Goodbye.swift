import EngineTransport
/// RTCP BYE (RFC 3550 §6.6), PT 203: the sources leaving, with an optional reason.
public struct Goodbye: Equatable, Sendable {
    public var ssrcs: [SSRC]
    public var reason: String?

    public init(ssrcs: [SSRC], reason: String? = nil) { self.ssrcs = ssrcs; self.reason = reason }

    static func parse(header: RTCPHeader, body r: inout ByteReader) throws(EngineError) -> Goodbye {
        var ssrcs: [SSRC] = []
        for _ in 0..<header.countOrFormat {
            guard let s = r.u32() else { throw .malformed(what: "RTCP BYE", reason: "truncated SSRC list") }
            ssrcs.append(SSRC(s))
        }
        var reason: String?
        if r.remaining > 0, let len = r.u8() {
            guard let text = r.take(Int(len)).map(Array.init) else { throw .malformed(what: "RTCP BYE", reason: "truncated reason") }
            reason = String(decoding: text, as: UTF8.self)
        }
        return Goodbye(ssrcs: ssrcs, reason: reason)
    }

    func write(_ w: inout WireWriter) {
        var body = WireWriter()
        for s in ssrcs.prefix(31) { body.u32(s.rawValue) }
        if let reason {
            let text = Array(reason.utf8.prefix(255))
            body.u8(UInt8(text.count))
            body.append(text)
            body.zeros((4 - body.count % 4) % 4)
        }
        RTCPHeader.write(&w, countOrFormat: UInt8(min(ssrcs.count, 31)), packetType: RTCPPacketType.goodbye,
                         bodySize: body.count)
        w.append(body.bytes)
    }
}
