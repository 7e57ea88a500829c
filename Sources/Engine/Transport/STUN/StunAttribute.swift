/// The attributes conftui understands (RFC 5389 §15, RFC 8445 §16.1, RFC 8656 §18 for TURN). Anything else that is
/// comprehension-required (type < 0x8000) is kept as `.unknown` so a server can answer 420;
/// unknown comprehension-optional attributes are skipped while parsing (RFC 5389 §7.3).
public enum StunAttribute: Equatable, Sendable {
    case mappedAddress(TransportAddress)
    case xorMappedAddress(TransportAddress)
    case username(String)
    /// Only produced by the decoder; the encoder computes it from the key.
    case messageIntegrity([UInt8])
    case errorCode(StunErrorCode)
    case unknownAttributes([UInt16])
    case realm(String)
    case nonce(String)
    case software(String)
    case priority(UInt32)
    case useCandidate
    case iceControlled(UInt64)
    case iceControlling(UInt64)
    /// TURN (RFC 8656 §18): the channel number (top 16 bits of the value; the low 16 bits are RFFU, sent as zero).
    case channelNumber(UInt16)
    /// TURN: seconds the server keeps an allocation (RFC 8656 §18.2).
    case lifetime(UInt32)
    /// TURN: the peer's address as the server sees it, XOR-coded like XOR-MAPPED-ADDRESS (RFC 8656 §18.3).
    case xorPeerAddress(TransportAddress)
    /// TURN: the application datagram of a Send or Data indication (RFC 8656 §18.4).
    case data([UInt8])
    /// TURN: the relayed transport address the server allocated (RFC 8656 §18.5).
    case xorRelayedAddress(TransportAddress)
    /// TURN: the IP protocol number of the allocation's relayed transport, 17 for UDP (RFC 8656 §18.7).
    case requestedTransport(UInt8)
    /// Only produced by the decoder; the encoder computes it.
    case fingerprint(UInt32)
    case unknown(type: UInt16, value: [UInt8])

    /// Attribute type codes (IANA "STUN Attributes" registry).
    enum Code {
        static let mappedAddress: UInt16 = 0x0001
        static let username: UInt16 = 0x0006
        static let messageIntegrity: UInt16 = 0x0008
        static let errorCode: UInt16 = 0x0009
        static let unknownAttributes: UInt16 = 0x000A
        static let realm: UInt16 = 0x0014
        static let nonce: UInt16 = 0x0015
        static let xorMappedAddress: UInt16 = 0x0020
        static let priority: UInt16 = 0x0024
        static let useCandidate: UInt16 = 0x0025
        static let channelNumber: UInt16 = 0x000C
        static let lifetime: UInt16 = 0x000D
        static let xorPeerAddress: UInt16 = 0x0012
        static let data: UInt16 = 0x0013
        static let xorRelayedAddress: UInt16 = 0x0016
        static let requestedTransport: UInt16 = 0x0019
        static let software: UInt16 = 0x8022
        static let fingerprint: UInt16 = 0x8028
        static let iceControlled: UInt16 = 0x8029
        static let iceControlling: UInt16 = 0x802A
    }

    var typeCode: UInt16 {
        switch self {
        case .mappedAddress: return Code.mappedAddress
        case .xorMappedAddress: return Code.xorMappedAddress
        case .username: return Code.username
        case .messageIntegrity: return Code.messageIntegrity
        case .errorCode: return Code.errorCode
        case .unknownAttributes: return Code.unknownAttributes
        case .realm: return Code.realm
        case .nonce: return Code.nonce
        case .software: return Code.software
        case .priority: return Code.priority
        case .useCandidate: return Code.useCandidate
        case .iceControlled: return Code.iceControlled
        case .iceControlling: return Code.iceControlling
        case .fingerprint: return Code.fingerprint
        case .channelNumber: return Code.channelNumber
        case .lifetime: return Code.lifetime
        case .xorPeerAddress: return Code.xorPeerAddress
        case .data: return Code.data
        case .xorRelayedAddress: return Code.xorRelayedAddress
        case .requestedTransport: return Code.requestedTransport
        case .unknown(let type, _): return type
        }
    }
}
