import EngineTransport
/// The transport-wide sequence number header extension (transport-wide-cc-extensions-01 §2): one 16-bit counter
/// over every RTP packet a sender puts on a transport, whatever its SSRC, so that feedback can name each packet.
///
///     |  ID   | L=1   |transport-wide sequence number |
public enum TransportWideSequenceNumber {
    /// The `a=extmap` URI Chromium offers for it.
    public static let uri = Extmap.transportWideCCURI
    /// The `a=rtcp-fb` value saying the receiver sends transport feedback (RTPFB FMT 15).
    public static let feedback = "transport-cc"

    /// The number `packet` carries under the negotiated `id`, if any. An element of another size is not this one.
    public static func read(from packet: RTPPacket, id: UInt8) -> UInt16? {
        guard let data = packet.headerExtensions?.element(id: id), data.count == 2 else { return nil }
        return UInt16(data[0]) << 8 | UInt16(data[1])
    }

    /// The element to put in a send stream's header extensions, to be overwritten by `stamp` as each packet leaves
    /// (so a retransmission gets a number of its own, as the feedback must name what was actually sent).
    public static func placeholder(id: UInt8) -> RTPHeaderExtensionElement { RTPHeaderExtensionElement(id: id, data: [0, 0]) }

    /// Writes `value` into the element `id` of the serialized RTP packet `bytes`, in place. False when the packet has
    /// no such two-byte element (or is not a well-formed RTP packet): nothing is written then.
    public static func stamp(_ value: UInt16, id: UInt8, in bytes: inout [UInt8]) -> Bool {
        guard let offset = dataOffset(id: id, in: bytes) else { return false }
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value)
        return true
    }

    /// Whether `bytes` carries a two-byte element `id` to stamp.
    public static func hasElement(id: UInt8, in bytes: [UInt8]) -> Bool { dataOffset(id: id, in: bytes) != nil }

    /// Where element `id`'s two data bytes start in `bytes`, walking the RFC 8285 one-byte or two-byte form.
    static func dataOffset(id: UInt8, in bytes: [UInt8]) -> Int? {
        guard bytes.count >= RTPPacket.fixedHeaderSize, bytes[0] >> 6 == 2, bytes[0] & 0x10 != 0 else { return nil }
        let start = RTPPacket.fixedHeaderSize + 4 * Int(bytes[0] & 0x0F)
        guard start + 4 <= bytes.count else { return nil }
        let profile = UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1])
        let end = start + 4 + 4 * (Int(bytes[start + 2]) << 8 | Int(bytes[start + 3]))
        guard end <= bytes.count else { return nil }
        var i = start + 4
        if profile == RTPHeaderExtensions.oneByteProfile {
            while i < end {
                let elementID = bytes[i] >> 4, length = Int(bytes[i] & 0x0F) + 1
                if elementID == 0 { i += 1; continue }
                if elementID == 15 { return nil }
                guard i + 1 + length <= end else { return nil }
                if elementID == id { return length == 2 ? i + 1 : nil }
                i += 1 + length
            }
        } else if profile & RTPHeaderExtensions.twoByteProfileMask == RTPHeaderExtensions.twoByteProfile {
            while i < end {
                if bytes[i] == 0 { i += 1; continue }
                guard i + 1 < end else { return nil }
                let length = Int(bytes[i + 1])
                guard i + 2 + length <= end else { return nil }
                if bytes[i] == id { return length == 2 ? i + 2 : nil }
                i += 2 + length
            }
        }
        return nil
    }
}
