/// RTP retransmission payload format (RFC 4588 §4): a retransmitted packet travels on its own
/// SSRC and payload type (associated with the original by `a=fmtp:<rtx> apt=<original>` and
/// `a=ssrc-group:FID`), with its own sequence numbers; the payload starts with the original
/// sequence number (OSN), followed by the original payload. Keeping retransmissions on a separate
/// stream keeps them out of the media stream's loss and jitter statistics (A.3, A.8).
public enum RTXPayload {
    /// The RTX packet carrying `original` (RFC 4588 §4: same timestamp and marker; CSRCs and
    /// header extensions are copied; padding is not).
    public static func wrap(_ original: RTPPacket, ssrc: SSRC, payloadType: PayloadType,
                            sequenceNumber: SequenceNumber) -> RTPPacket {
        let osn = original.sequenceNumber.rawValue
        return RTPPacket(marker: original.marker, payloadType: payloadType, sequenceNumber: sequenceNumber,
                         timestamp: original.timestamp, ssrc: ssrc, csrcs: original.csrcs,
                         headerExtensions: original.headerExtensions,
                         payload: [UInt8(osn >> 8), UInt8(truncatingIfNeeded: osn)] + original.payload)
    }

    /// The original packet inside an RTX packet, given the media SSRC and payload type it
    /// belongs to. An RTX packet without the 2-byte OSN is malformed (RFC 4588 §4: "an empty
    /// payload ... MAY be used for probing" is only for packets with padding, which we ignore).
    public static func unwrap(_ rtx: RTPPacket, mediaSSRC: SSRC, payloadType: PayloadType) throws(EngineError) -> RTPPacket {
        guard rtx.payload.count >= 2 else {
            throw .malformed(what: "RTX packet", reason: "\(rtx.payload.count)-byte payload has no original sequence number")
        }
        let osn = UInt16(rtx.payload[0]) << 8 | UInt16(rtx.payload[1])
        return RTPPacket(marker: rtx.marker, payloadType: payloadType, sequenceNumber: SequenceNumber(osn),
                         timestamp: rtx.timestamp, ssrc: mediaSSRC, csrcs: rtx.csrcs,
                         headerExtensions: rtx.headerExtensions, payload: Array(rtx.payload[2...]))
    }
}

/// The negotiated RTX stream of a video stream: its SSRC and payload type.
public struct RTXConfiguration: Sendable, Equatable {
    public var ssrc: SSRC
    public var payloadType: PayloadType
    public init(ssrc: SSRC, payloadType: PayloadType) { self.ssrc = ssrc; self.payloadType = payloadType }
}
