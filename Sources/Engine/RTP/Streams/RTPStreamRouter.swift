/// Decides which m-line (MID) an incoming clear RTP packet belongs to when everything shares one
/// BUNDLE transport, following JSEP (RFC 8829 §5.11, after RFC 8843 §9.2):
///
/// 1. a packet carrying the MID header extension goes to that MID, and its SSRC is remembered
///    ("latched") for later packets that omit the extension (Chrome stops sending it once acked);
/// 2. otherwise a known SSRC (from `a=ssrc` or an earlier latch) decides;
/// 3. otherwise a payload type used by exactly one m-line decides, and the SSRC is latched;
/// 4. otherwise the packet cannot be routed (nil) and is dropped by the caller.
public struct RTPStreamRouter: Sendable {
    public var extensions: RTPHeaderExtensionMap
    private var bySSRC: [SSRC: Mid] = [:]
    private var byPayloadType: [PayloadType: Mid] = [:]
    private var ambiguousPayloadTypes: Set<PayloadType> = []

    public init(extensions: RTPHeaderExtensionMap = RTPHeaderExtensionMap()) { self.extensions = extensions }

    /// An SSRC the remote description announced for `mid` (`a=ssrc`).
    public mutating func expect(ssrc: SSRC, mid: Mid) { bySSRC[ssrc] = mid }

    /// The payload types negotiated on `mid`; a type shared by two m-lines routes nothing.
    public mutating func expect(payloadTypes: [PayloadType], mid: Mid) {
        for pt in payloadTypes {
            if let other = byPayloadType[pt], other != mid {
                ambiguousPayloadTypes.insert(pt)
                byPayloadType.removeValue(forKey: pt)
            } else if !ambiguousPayloadTypes.contains(pt) {
                byPayloadType[pt] = mid
            }
        }
    }

    public mutating func route(_ packet: RTPPacket) -> Mid? {
        if let mid = extensions.mid(of: packet) {
            bySSRC[packet.ssrc] = mid
            return mid
        }
        if let mid = bySSRC[packet.ssrc] { return mid }
        if let mid = byPayloadType[packet.payloadType] {
            bySSRC[packet.ssrc] = mid
            return mid
        }
        return nil
    }

    /// The MID an SSRC has been routed to, if any (for RTCP about that source).
    public func mid(of ssrc: SSRC) -> Mid? { bySSRC[ssrc] }
}
