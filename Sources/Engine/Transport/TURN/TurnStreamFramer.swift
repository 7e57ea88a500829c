/// Cuts a TURN server's byte stream (TCP or TLS, RFC 8656 §3.1) into the messages `TurnClient` takes one at a time.
/// Over a stream "the client ... MUST be prepared to receive" STUN messages and ChannelData back to back; each
/// announces its own length: STUN in its header (20 bytes + the length field, RFC 8489 §5), ChannelData in its
/// header padded to four bytes (§12.5). RFC 7983's first-byte rule tells them apart (and STUN's magic cookie confirms it); anything else means the
/// stream is not TURN (or lost its framing) and nothing after it can be trusted.
public struct TurnStreamFramer: Sendable {
    /// The largest message believed: a STUN message's length field or a ChannelData length (both 16-bit) plus its
    /// header; the buffer never holds more than one such message and a partial read.
    public static let maxMessage = 20 + 65535
    private var buffer: [UInt8] = []

    public init() {}

    /// Appends `bytes` and returns every whole message now buffered, in order; throws when the stream is not TURN.
    public mutating func push(_ bytes: [UInt8]) throws(EngineError) -> [[UInt8]] {
        buffer += bytes
        var messages: [[UInt8]] = []
        var start = 0
        while buffer.count - start >= 4 {
            let first = buffer[start]
            let length: Int
            if first < 0x40 {
                // RFC 8489 §5: every STUN message carries the magic cookie and a length that is a multiple of 4.
                guard buffer.count - start >= 8 else { break }
                let bodyLength = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
                guard Array(buffer[start + 4..<start + 8]) == [0x21, 0x12, 0xA4, 0x42], bodyLength % 4 == 0 else {
                    buffer = []
                    throw .malformed(what: "TURN stream", reason: "a STUN header without the magic cookie (RFC 8489 §5)")
                }
                length = 20 + bodyLength
            } else if first <= 0x4F {
                length = TurnChannelData.streamFrameLength(buffer[start...])!
            } else {
                buffer = []
                throw .malformed(what: "TURN stream", reason: "byte 0x\(String(first, radix: 16)) starts neither STUN nor ChannelData (RFC 7983)")
            }
            guard buffer.count - start >= length else { break }
            messages.append(Array(buffer[start..<start + length]))
            start += length
        }
        buffer.removeFirst(start)
        return messages
    }

    /// Bytes of an incomplete message held (bounded by `maxMessage` plus one read).
    public var buffered: Int { buffer.count }
}
