import EngineTransport

/// A TURN server to gather a relayed candidate from (RFC 8656), as `--turn` names it: where it listens, over which
/// transport the client reaches it, and the long-term credentials it wants.
public struct TurnServer: Hashable, Sendable {
    public enum Transport: String, Sendable, CaseIterable {
        /// RFC 8656 §3.1: UDP is the default (`turn:HOST` without `?transport=`).
        case udp
        /// For networks that let only TCP out: the allocation still relays UDP to the peers (RFC 8656 §3.1), only
        /// the hop to the server is a stream.
        case tcp
        /// `turns:`: TCP with TLS on it (RFC 8656 §3.1), for networks that let only TLS out (often on port 443).
        case tls
    }

    public var address: TransportAddress
    public var transport: Transport
    public var credentials: TurnCredentials
    /// Over TLS: the name (or address literal) the certificate must carry, sent as SNI when it is a name.
    public var tlsHost: String
    public var tlsVerification: TlsClientCore.Verification

    public init(address: TransportAddress, transport: Transport, credentials: TurnCredentials, tlsHost: String? = nil,
                tlsVerification: TlsClientCore.Verification = .system) {
        self.address = address
        self.transport = transport
        self.credentials = credentials
        self.tlsHost = tlsHost ?? address.ip.description
        self.tlsVerification = tlsVerification
    }
}
