/// Roles, states and credentials of ICE.

/// RFC 8445 §6.1.1: exactly one agent is controlling; it nominates the pair.
public enum IceRole: String, Sendable {
    case controlling, controlled
}

/// W3C RTCIceConnectionState (webrtc-pc §5.6.4). `completed` is not used: conftui keeps checking for
/// trickled candidates, which the W3C text allows ("connected ... but is still checking").
public enum IceConnectionState: String, Sendable {
    case new, checking, connected, completed, failed, disconnected, closed
}

/// ICE username fragment and password (RFC 8445 §5.3, RFC 8839 §5.4).
public struct IceCredentials: Hashable, Sendable {
    public var ufrag: String
    public var pwd: String

    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// RFC 8839 §5.4: ufrag at least 4 and pwd at least 22 ice-chars (ALPHA / DIGIT / "+" / "/"),
    /// with at least 24 and 128 bits of randomness; 8 and 24 characters give 48 and 144 bits.
    public static func random(using rng: inout some RandomNumberGenerator) -> IceCredentials {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        func word(_ n: Int) -> String { String((0..<n).map { _ in alphabet.randomElement(using: &rng)! }) }
        return IceCredentials(ufrag: word(8), pwd: word(24))
    }
}
