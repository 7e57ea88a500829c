/// RFC 7983 §7: what a datagram on the shared (BUNDLE, rtcp-mux) 5-tuple is, by its first byte.
public enum PacketClass: Equatable, Sendable {
    case stun, zrtp, dtls, turnChannel, rtp, rtcp, unknown

    public init(_ datagram: [UInt8]) {
        guard let first = datagram.first else {
            self = .unknown
            return
        }
        switch first {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191:
            // RFC 5761 §4: with rtcp-mux, RTCP packet types 192-223 sit where RTP's marker bit + payload type
            // would be 64-95, a range RTP payload types must avoid.
            guard datagram.count >= 2 else {
                self = .unknown
                return
            }
            self = (192...223).contains(datagram[1]) ? .rtcp : .rtp
        default: self = .unknown
        }
    }
}
