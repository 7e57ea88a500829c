/// Splits encoded VP8 frames into RTP payloads (RFC 7741 §4): every payload starts with a
/// descriptor carrying a 15-bit PictureID (X=1, I=1, M=1) so a receiver can tell frames apart
/// across losses; the first payload of a frame has S=1, PID=0. The frame is cut into
/// near-equal pieces that each fit `maxPayloadSize` bytes (descriptor included), so no packet is
/// tiny (RFC 7741 §5 leaves the split to the sender).
public struct VP8Packetizer: Sendable {
    public let maxPayloadSize: Int
    private var pictureId: UInt16

    static let descriptorSize = 4

    /// - Parameters:
    ///   - maxPayloadSize: bytes available for the RTP payload (e.g. 1200 keeps a packet with
    ///     RTP header, SRTP tag and UDP/IP under a 1280-byte IPv6 minimum MTU).
    ///   - initialPictureId: start value, random per stream in a real session.
    public init(maxPayloadSize: Int = 1200, initialPictureId: UInt16 = 0) {
        precondition(maxPayloadSize > Self.descriptorSize, "the payload must fit a descriptor and one byte")
        self.maxPayloadSize = maxPayloadSize
        self.pictureId = initialPictureId & 0x7FFF
    }

    /// The payloads of one frame, in order; the last one carries the frame end (the RTP marker bit).
    public mutating func packetize(_ frame: [UInt8]) -> [[UInt8]] {
        guard !frame.isEmpty else { return [] }
        let room = maxPayloadSize - Self.descriptorSize
        let count = (frame.count + room - 1) / room
        let base = frame.count / count, extra = frame.count % count
        var out: [[UInt8]] = []
        out.reserveCapacity(count)
        var offset = 0
        for i in 0..<count {
            let size = base + (i < extra ? 1 : 0)
            var payload = VP8PayloadDescriptor(startOfPartition: i == 0, partitionIndex: 0, pictureId: pictureId,
                                               pictureIdIs15Bit: true).serialized()
            payload.append(contentsOf: frame[offset..<(offset + size)])
            offset += size
            out.append(payload)
        }
        pictureId = (pictureId &+ 1) & 0x7FFF
        return out
    }
}
