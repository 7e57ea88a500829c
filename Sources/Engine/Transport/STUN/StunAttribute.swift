/// The attributes conftui understands (RFC 5389 §15, RFC 8445 §16.1). Anything else that is
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
        case .unknown(let type, _): return type
        }
    }
}
