/// A ChannelData message (RFC 8656 §12.4): a 4-byte header (channel number, payload length) and the payload, the
/// cheap alternative to Send and Data indications once a channel is bound.
///
/// Framing differs by transport (§12.5): over UDP the datagram holds one message and padding is optional, so the
/// decoder accepts 0-3 bytes after the payload; over TCP and TLS every message is padded to a multiple of four so
/// the next one starts aligned, and the padding is not counted in the length field.
public struct TurnChannelData: Equatable, Sendable {
    /// RFC 8656 §12: "0x4000 through 0x4FFF: These values are the allowed channel numbers"; 0x5000-0xFFFF are
    /// reserved, and the top two bits 01 keep ChannelData apart from STUN (00) on the same 5-tuple (RFC 7983: first
    /// byte 64-79).
    public static let channelRange: ClosedRange<UInt16> = 0x4000...0x4FFF
    public static let headerLength = 4

    public var channel: UInt16
    public var payload: [UInt8]

    public init(channel: UInt16, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// RFC 7983 demultiplexing: the first byte of a ChannelData message of an allowed channel is 0x40-0x4F.
    public static func looksLikeChannelData(_ bytes: [UInt8]) -> Bool {
        bytes.count >= headerLength && (0x40...0x4F).contains(bytes[0])
    }

    /// Decodes one message filling a UDP datagram (with at most 3 bytes of padding after the payload).
    public init(decodingDatagram bytes: [UInt8]) throws(EngineError) {
        guard bytes.count >= Self.headerLength else { throw Self.malformed("short header (\(bytes.count) bytes)") }
        let channel = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard Self.channelRange.contains(channel) else { throw Self.malformed("channel 0x\(String(channel, radix: 16))") }
        let after = bytes.count - Self.headerLength
        // §12.5: the length field does not count padding; more than three trailing bytes is not padding.
        guard length <= after, after - length <= 3 else {
            throw Self.malformed("length field \(length) but \(after) bytes follow the header")
        }
        self.channel = channel
        payload = Array(bytes[Self.headerLength..<Self.headerLength + length])
    }

    /// The size a message whose header is at the start of `bytes` occupies in a stream, padding included, or nil
    /// while the header is incomplete (§12.5: "(4 + Length) rounded up to the nearest multiple of 4").
    public static func streamFrameLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= headerLength else { return nil }
        let start = bytes.startIndex
        let length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
        return (headerLength + length + 3) & ~3
    }

    /// The wire form; `padded` rounds it up to a multiple of four (required over TCP and TLS, §12.5).
    /// Refuses a channel outside the range or a payload over the 16-bit length field.
    public func encode(padded: Bool) throws(EngineError) -> [UInt8] {
        guard Self.channelRange.contains(channel) else {
            throw .invalidArgument("TURN channel 0x\(String(channel, radix: 16)) outside 0x4000-0x4FFF (RFC 8656 §12)")
        }
        guard payload.count <= Int(UInt16.max) else {
            throw .invalidArgument("ChannelData payload of \(payload.count) bytes; the length field holds at most \(UInt16.max)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(Self.headerLength + payload.count + 3)
        out.appendBE(channel)
        out.appendBE(UInt16(payload.count))
        out.append(contentsOf: payload)
        if padded { out.append(contentsOf: repeatElement(0, count: (4 - payload.count % 4) % 4)) }
        return out
    }

    static func malformed(_ reason: String) -> EngineError { .malformed(what: "ChannelData", reason: reason) }
}
