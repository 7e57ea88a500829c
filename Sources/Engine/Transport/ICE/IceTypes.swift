/// Small value types of the ICE agent.

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

/// A datagram the agent wants sent: from the local candidate's base to a remote transport address.
public struct Transmit: Hashable, Sendable {
    public var from: TransportAddress
    public var to: TransportAddress
    public var bytes: [UInt8]
}

/// The pair carrying media once ICE has selected it.
public struct SelectedPair: Hashable, Sendable {
    public var local: IceCandidate
    public var localBase: TransportAddress
    public var remote: IceCandidate
    public var remoteAddress: TransportAddress
}

public enum IceEvent: Hashable, Sendable {
    /// A local candidate to signal to the peer (trickle or SDP).
    case candidateGathered(IceCandidate)
    case stateChanged(IceConnectionState)
    case selectedPairChanged(SelectedPair)
    /// After a role conflict (RFC 8445 §7.3.1.1) or a 487 response (§7.2.5.1).
    case roleChanged(IceRole)
}

public enum IceCommand: Hashable, Sendable {
    /// A host address the driver found (getifaddrs) and bound a socket to: becomes a host candidate.
    case addLocalHost(TransportAddress)
    case setRemoteCredentials(IceCredentials)
    case addRemoteCandidate(IceCandidate)
    case close
}

public enum IceInput: Hashable, Sendable {
    /// A datagram received on the local socket bound to `to`.
    case datagram(from: TransportAddress, to: TransportAddress, bytes: [UInt8])
    /// The deadline returned earlier has passed (extra timeouts are harmless).
    case timeout
    case command(IceCommand)
}

/// What one call to `IceAgent.handle` produced.
public struct IceOutput: Sendable {
    public var transmits: [Transmit] = []
    public var events: [IceEvent] = []
    /// Call `handle(.timeout, now:)` no later than this; nil when the agent waits only for input.
    public var deadline: TransportTime?
}
