import EngineTransport
/// Decides which m-line (MID) an incoming clear RTP packet belongs to when everything shares one
/// BUNDLE transport, following JSEP (RFC 8829 §5.11, after RFC 8843 §9.2):
///
/// 1. a packet carrying the MID header extension goes to that MID, and its SSRC is remembered
///    ("latched") for later packets that omit the extension (Chrome stops sending it once acked);
/// 2. otherwise a known SSRC (from `a=ssrc` or an earlier latch) decides;
/// 3. otherwise a payload type used by exactly one m-line decides, and the SSRC is latched;
/// 4. otherwise the packet cannot be routed (nil) and is dropped by the caller.
///
/// Bounded: at most `maxSSRCs` (`RTPLimits.maxRemoteSSRCs`) SSRCs are remembered, announced ones included; a
/// packet from a further SSRC is not routed (dropped) and counted in `droppedUnknownSSRC`, so a peer cycling through
/// SSRCs cannot grow this table or anything keyed by SSRC behind it.
public struct RTPStreamRouter: Sendable {
    public var extensions: RTPHeaderExtensionMap
    public let maxSSRCs: Int
    private var bySSRC: [SSRC: Mid] = [:]
    /// SSRCs latched per section (`RTPLimits.maxRemoteSSRCsPerSection` at most).
    private var perSection: [Mid: Int] = [:]
    /// Packets dropped because their SSRC would exceed `maxSSRCs`.
    public private(set) var droppedUnknownSSRC = 0
    private var byPayloadType: [PayloadType: Mid] = [:]
    private var ambiguousPayloadTypes: Set<PayloadType> = []

    public init(extensions: RTPHeaderExtensionMap = RTPHeaderExtensionMap(), maxSSRCs: Int = RTPLimits.maxRemoteSSRCs) {
        self.extensions = extensions
        self.maxSSRCs = maxSSRCs
    }

    /// The number of SSRCs remembered (at most `maxSSRCs`).
    public var ssrcCount: Int { bySSRC.count }

    /// Latches `ssrc` to `mid` if the table and the section have room for it (or already know it).
    private mutating func latch(_ ssrc: SSRC, _ mid: Mid) -> Bool {
        let previous = bySSRC[ssrc]
        if previous == mid { return true }
        guard previous != nil || bySSRC.count < maxSSRCs, perSection[mid, default: 0] < RTPLimits.maxRemoteSSRCsPerSection else { return false }
        if let previous { perSection[previous, default: 1] -= 1 }
        perSection[mid, default: 0] += 1
        bySSRC[ssrc] = mid
        return true
    }

    /// An SSRC the remote description announced for `mid` (`a=ssrc`).
    public mutating func expect(ssrc: SSRC, mid: Mid) { _ = latch(ssrc, mid) }

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
        if let mid = bySSRC[packet.ssrc] {
            // A MID extension re-latches a known SSRC (its section may change with renegotiation).
            if let named = extensions.mid(of: packet), named != mid { return latch(packet.ssrc, named) ? named : mid }
            return mid
        }
        guard let mid = extensions.mid(of: packet) ?? byPayloadType[packet.payloadType] else { return nil }
        guard latch(packet.ssrc, mid) else {
            droppedUnknownSSRC += 1
            return nil
        }
        return mid
    }

    /// The MID an SSRC has been routed to, if any (for RTCP about that source).
    public func mid(of ssrc: SSRC) -> Mid? { bySSRC[ssrc] }
}
