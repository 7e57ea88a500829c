import EngineTransport
/// REMB (draft-alvestrand-rmcat-remb-03 §2.2): application-layer feedback, PT 206 FMT 15, media
/// SSRC 0, then the identifier "REMB", the SSRC count, a 6-bit exponent and an 18-bit mantissa
/// (bitrate = mantissa << exp, bits per second) and the SSRCs the estimate applies to.
public struct ReceiverEstimatedMaxBitrate: Equatable, Sendable {
    static let format: UInt8 = 15
    static let identifier: [UInt8] = Array("REMB".utf8)

    public var senderSSRC: SSRC
    /// Bits per second. Written exactly when it fits 18 bits of mantissa, otherwise rounded down.
    public var bitrate: UInt64
    public var ssrcs: [SSRC]

    public init(senderSSRC: SSRC, bitrate: UInt64, ssrcs: [SSRC]) {
        self.senderSSRC = senderSSRC; self.bitrate = bitrate; self.ssrcs = ssrcs
    }

    /// True when a PSFB FMT 15 body is a REMB (other AFB messages exist).
    static func matches(body: [UInt8], at offset: Int) -> Bool {
        body.count >= offset + 12 && Array(body[(offset + 8)..<(offset + 12)]) == identifier
    }

    static func parse(body r: inout ByteReader) throws(EngineError) -> ReceiverEstimatedMaxBitrate {
        func bad(_ s: String) -> EngineError { .malformed(what: "RTCP REMB", reason: s) }
        guard let sender = r.u32(), r.u32() != nil, let id = r.take(4), Array(id) == identifier,
              let count = r.u8(), let expMantissa = r.u24() else { throw bad("truncated") }
        let exp = UInt64(expMantissa >> 18)
        let mantissa = UInt64(expMantissa & 0x3FFFF)
        // An exponent that shifts bits out of 64 is nonsense; saturate rather than trap.
        let bitrate = exp >= 46 && mantissa != 0 ? UInt64.max : mantissa << exp
        var ssrcs: [SSRC] = []
        for _ in 0..<count {
            guard let s = r.u32() else { throw bad("truncated SSRC list") }
            ssrcs.append(SSRC(s))
        }
        return ReceiverEstimatedMaxBitrate(senderSSRC: SSRC(sender), bitrate: bitrate, ssrcs: ssrcs)
    }

    func write(_ w: inout WireWriter) {
        let list = ssrcs.prefix(255)
        RTCPHeader.write(&w, countOrFormat: Self.format, packetType: RTCPPacketType.payloadFeedback,
                         bodySize: 16 + 4 * list.count)
        w.u32(senderSSRC.rawValue); w.u32(0)
        w.append(Self.identifier)
        w.u8(UInt8(list.count))
        var mantissa = bitrate
        var exp: UInt32 = 0
        while mantissa > 0x3FFFF { mantissa >>= 1; exp += 1 }
        w.u24(exp << 18 | UInt32(mantissa))
        for s in list { w.u32(s.rawValue) }
    }
}
