import EngineTransport
/// An RTP data packet (RFC 3550 §5.1):
///
///     |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///     |                           timestamp                           |
///     |           synchronization source (SSRC) identifier            |
///     |            contributing source (CSRC) identifiers  (0..15)    |
///     [ header extension: profile(16) length-in-words(16) body ]
///     payload ... [padding, last byte = padding count]
public struct RTPPacket: Equatable, Sendable {
    public var marker: Bool
    public var payloadType: PayloadType
    public var sequenceNumber: SequenceNumber
    public var timestamp: UInt32
    public var ssrc: SSRC
    public var csrcs: [SSRC]
    public var headerExtensions: RTPHeaderExtensions?
    public var payload: [UInt8]
    /// Number of padding bytes including the count byte (0 = no padding, P bit clear).
    public var paddingLength: UInt8

    public init(marker: Bool = false, payloadType: PayloadType, sequenceNumber: SequenceNumber, timestamp: UInt32,
                ssrc: SSRC, csrcs: [SSRC] = [], headerExtensions: RTPHeaderExtensions? = nil,
                payload: [UInt8], paddingLength: UInt8 = 0) {
        self.marker = marker; self.payloadType = payloadType; self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp; self.ssrc = ssrc; self.csrcs = csrcs
        self.headerExtensions = headerExtensions; self.payload = payload; self.paddingLength = paddingLength
    }

    static let fixedHeaderSize = 12

    /// Parses one packet, checking every length against the datagram.
    public static func parse(_ bytes: [UInt8]) throws(EngineError) -> RTPPacket {
        func bad(_ reason: String) -> EngineError { .malformed(what: "RTP packet", reason: reason) }
        var r = ByteReader(bytes)
        guard let b0 = r.u8(), let b1 = r.u8(), let seq = r.u16(), let ts = r.u32(), let ssrc = r.u32() else {
            throw bad("\(bytes.count) bytes, shorter than the 12-byte header")
        }
        guard b0 >> 6 == 2 else { throw bad("version \(b0 >> 6)") }
        let hasPadding = b0 & 0x20 != 0
        let hasExtension = b0 & 0x10 != 0
        let csrcCount = Int(b0 & 0x0F)
        var csrcs: [SSRC] = []
        csrcs.reserveCapacity(csrcCount)
        for _ in 0..<csrcCount {
            guard let c = r.u32() else { throw bad("truncated in the CSRC list") }
            csrcs.append(SSRC(c))
        }
        var extensions: RTPHeaderExtensions?
        if hasExtension {
            guard let profile = r.u16(), let words = r.u16() else { throw bad("truncated extension header") }
            guard let body = r.take(Int(words) * 4).map(Array.init) else { throw bad("extension of \(words) words overruns the packet") }
            extensions = try RTPHeaderExtensions.parse(profile: profile, body: body)
        }
        var payloadEnd = bytes.count
        var padding: UInt8 = 0
        if hasPadding {
            // RFC 3550 §5.1: "The last octet of the padding contains a count of how many padding
            // octets should be ignored, including itself."
            guard r.remaining >= 1 else { throw bad("P bit set but no padding byte") }
            padding = bytes[bytes.count - 1]
            guard padding >= 1, Int(padding) <= r.remaining else { throw bad("padding count \(padding) invalid") }
            payloadEnd -= Int(padding)
        }
        guard let pt = PayloadType(rawValue: b1 & 0x7F) else { throw bad("payload type") }
        return RTPPacket(marker: b1 & 0x80 != 0, payloadType: pt, sequenceNumber: SequenceNumber(seq), timestamp: ts,
                         ssrc: SSRC(ssrc), csrcs: csrcs, headerExtensions: extensions,
                         payload: Array(bytes[r.offset..<payloadEnd]), paddingLength: padding)
    }

    /// Demultiplexes RTP from RTCP on one port (RFC 5761 §4): the second byte of RTCP is a packet
    /// type in 192...223; RTP payload types 64...95 would collide with it, which is why they are
    /// not used with rtcp-mux.
    public static func looksLikeRTCP(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && (192...223).contains(bytes[1])
    }

    /// The wire form. At most 15 CSRCs are written (the CC field is 4 bits).
    public func serialized() -> [UInt8] {
        var w = WireWriter(capacity: Self.fixedHeaderSize + payload.count + 32)
        let cc = UInt8(min(csrcs.count, 15))
        w.u8(2 << 6 | (paddingLength > 0 ? 0x20 : 0) | (headerExtensions != nil ? 0x10 : 0) | cc)
        w.u8((marker ? 0x80 : 0) | payloadType.rawValue)
        w.u16(sequenceNumber.rawValue)
        w.u32(timestamp)
        w.u32(ssrc.rawValue)
        for c in csrcs.prefix(15) { w.u32(c.rawValue) }
        if let ext = headerExtensions {
            let (profile, body) = ext.encoded()
            w.u16(profile)
            w.u16(UInt16(truncatingIfNeeded: body.count / 4))
            w.append(body)
        }
        w.append(payload)
        if paddingLength > 0 {
            w.zeros(Int(paddingLength) - 1)
            w.u8(paddingLength)
        }
        return w.bytes
    }
}
