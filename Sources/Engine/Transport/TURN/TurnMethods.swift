/// The STUN methods and error codes TURN adds (RFC 8656 §17, §19).
extension StunMethod {
    public static let allocate = StunMethod(rawValue: 0x003)!
    public static let refresh = StunMethod(rawValue: 0x004)!
    /// Indication only: the client hands the server a datagram for a peer (RFC 8656 §10).
    public static let send = StunMethod(rawValue: 0x006)!
    /// Indication only: the server hands the client a datagram from a peer (RFC 8656 §10).
    public static let data = StunMethod(rawValue: 0x007)!
    public static let createPermission = StunMethod(rawValue: 0x008)!
    public static let channelBind = StunMethod(rawValue: 0x009)!
}

extension StunErrorCode {
    /// RFC 8489 §14.8: the nonce is no longer valid; retry with the NONCE of this response.
    public static let staleNonce = StunErrorCode(code: 438, reason: "Stale Nonce")!
    /// RFC 8656 §19: an Allocate on a 5-tuple that already has an allocation, or a request on one that has none.
    public static let allocationMismatch = StunErrorCode(code: 437, reason: "Allocation Mismatch")!
    public static let forbidden = StunErrorCode(code: 403, reason: "Forbidden")!
}

/// The REQUESTED-TRANSPORT protocol number of a UDP relay (RFC 8656 §18.7: "the IANA-assigned protocol number ...
/// 17 (UDP)"), the only one conftui asks for: WebRTC media is datagrams whatever carries them to the server.
enum TurnProtocolNumber {
    static let udp: UInt8 = 17
}
