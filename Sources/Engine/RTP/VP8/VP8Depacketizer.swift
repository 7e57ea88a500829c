import EngineTransport
/// Reassembles one VP8 frame from the RTP packets that carry it (RFC 7741 §4), given in sequence
/// order. A frame is whole only when the first packet starts it (S=1, PID=0), the last has the
/// marker bit, the sequence numbers are contiguous, all share one timestamp and every descriptor
/// parses; anything else is refused, so the decoder never sees a frame with a hole.
public enum VP8Depacketizer {
    public struct Frame: Equatable, Sendable {
        public var data: [UInt8]
        public var isKeyframe: Bool
        public var rtpTimestamp: UInt32
        public var pictureId: UInt16?
    }

    public static func assemble(_ packets: [RTPPacket]) throws(EngineError) -> Frame {
        func bad(_ s: String) -> EngineError { .malformed(what: "VP8 frame", reason: s) }
        guard let first = packets.first, let last = packets.last else { throw bad("no packets") }
        guard last.marker else { throw bad("last packet has no marker bit") }
        var data: [UInt8] = []
        data.reserveCapacity(packets.reduce(0) { $0 + $1.payload.count })
        var pictureId: UInt16?
        for (i, p) in packets.enumerated() {
            guard p.timestamp == first.timestamp else { throw bad("timestamps differ") }
            if i > 0 {
                guard p.sequenceNumber == packets[i - 1].sequenceNumber.next else { throw bad("sequence gap") }
            }
            let (d, size) = try VP8PayloadDescriptor.parse(p.payload)
            if i == 0 {
                guard d.startsFrame else { throw bad("first packet does not start the frame") }
                pictureId = d.pictureId
            } else if d.startsFrame {
                throw bad("a second frame start inside the frame")
            }
            data.append(contentsOf: p.payload[size...])
        }
        return Frame(data: data, isKeyframe: VP8PayloadDescriptor.isKeyframe(payload: first.payload),
                     rtpTimestamp: first.timestamp, pictureId: pictureId)
    }
}
