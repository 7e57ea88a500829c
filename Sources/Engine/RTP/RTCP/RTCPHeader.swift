import EngineTransport
/// The common RTCP header (RFC 3550 §6.4.1):
///
///     |V=2|P|   RC/FMT  |      PT       |             length            |
///
/// `length` counts 32-bit words minus one, header included.
struct RTCPHeader: Equatable {
    static let size = 4
    var padding: Bool
    /// Report count (SR/RR/SDES/BYE) or feedback message type (RFC 4585 §6.1).
    var countOrFormat: UInt8
    var packetType: UInt8
    var lengthWords: UInt16

    /// Total packet size in bytes, header included.
    var packetSize: Int { (Int(lengthWords) + 1) * 4 }

    static func parse(_ r: inout ByteReader) -> RTCPHeader? {
        guard let b0 = r.u8(), let pt = r.u8(), let len = r.u16() else { return nil }
        guard b0 >> 6 == 2 else { return nil }
        return RTCPHeader(padding: b0 & 0x20 != 0, countOrFormat: b0 & 0x1F, packetType: pt, lengthWords: len)
    }

    /// Writes a header; `body` must already be a multiple of 4 bytes.
    static func write(_ w: inout WireWriter, countOrFormat: UInt8, packetType: UInt8, bodySize: Int) {
        w.u8(2 << 6 | (countOrFormat & 0x1F))
        w.u8(packetType)
        w.u16(UInt16(truncatingIfNeeded: (bodySize + 4) / 4 - 1))
    }
}

/// RTCP packet type numbers (RFC 3550 §12.1, RFC 4585 §6.1).
enum RTCPPacketType {
    static let senderReport: UInt8 = 200
    static let receiverReport: UInt8 = 201
    static let sourceDescription: UInt8 = 202
    static let goodbye: UInt8 = 203
    static let application: UInt8 = 204
    /// Transport-layer feedback (NACK = FMT 1).
    static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback (PLI = FMT 1, FIR = FMT 4, AFB/REMB = FMT 15).
    static let payloadFeedback: UInt8 = 206
}
