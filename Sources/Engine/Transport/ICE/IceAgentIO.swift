/// The sans-IO surface of `IceAgent`: what goes in (`IceInput`, `IceCommand`) and what comes out (`IceOutput`).

/// A datagram the agent wants sent: from the local candidate's base to a remote transport address.
public struct Transmit: Hashable, Sendable {
    public var from: TransportAddress
    public var to: TransportAddress
    public var bytes: [UInt8]

    package init(from: TransportAddress, to: TransportAddress, bytes: [UInt8]) {
        self.from = from; self.to = to; self.bytes = bytes
    }
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
    /// A TURN allocation's relayed transport address (RFC 8445 §5.1.1.2): a relay candidate whose base is itself.
    /// Checks from it leave as `Transmit(from: relayed, ...)`, which the driver sends through the TURN client; what
    /// the server relays back is fed in as a datagram `to: relayed`. `mapped` (the server-reflexive address the TURN
    /// server saw) is only the candidate's related address.
    case addLocalRelayed(relayed: TransportAddress, mapped: TransportAddress?)
    case setRemoteCredentials(IceCredentials)
    case addRemoteCandidate(IceCandidate)
    /// The peer has signalled all its candidates (`a=end-of-candidates`, RFC 8838 §4.1): once every pair has
    /// failed the agent may give up without waiting for `checkingTimeout`.
    case endOfRemoteCandidates
    /// ICE restart (RFC 8445 §9): new local credentials, and everything learnt of the peer forgotten (credentials,
    /// candidates, pairs, checks) until it signals again; host candidates stay, the relayed one is replaced by
    /// `relayed` (a new allocation) or dropped. The selected pair keeps carrying media until a new one is selected.
    /// `hosts`, when given, are the host addresses from now on (the machine's addresses changed): host candidates
    /// whose base is not among them go, new ones are gathered.
    case restart(local: IceCredentials, relayed: TransportAddress?, mapped: TransportAddress?, hosts: [TransportAddress]? = nil)
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
