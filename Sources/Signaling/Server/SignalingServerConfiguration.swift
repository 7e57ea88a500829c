/// Every knob of `SignalingServer`. Defaults are the production values; tests shrink the timeouts.
public struct SignalingServerConfiguration: Sendable {
    /// IPv4 address to bind ("127.0.0.1", "0.0.0.0", "localhost").
    public var host = "127.0.0.1"
    /// 0 picks a free port (read it back from `SignalingServer.port`).
    public var port: UInt16 = 3000
    /// nil for plain http/ws.
    public var tls: TLSServerMode?
    public var format: SkyRTCWireFormat = .conftui
    /// Largest WebSocket message after reassembly; bigger ones close with 1009.
    public var maxMessageSize = 1 << 20
    /// Largest HTTP request head; bigger ones get 431 and a close.
    public var maxRequestHeadBytes = 16 * 1024
    /// Bytes queued for one connection that it has not read yet. Past this, the connection is
    /// dropped: one client that reads nothing must not make the server hold unbounded memory.
    public var maxOutgoingBytes = 4 << 20
    /// Seconds from accept to a completed opening handshake (TLS included).
    public var handshakeTimeout = 10.0
    /// Seconds of silence before the server pings; a connection silent for twice this is dropped.
    public var pingInterval = 20.0
    /// Seconds to wait for the peer to close after our close frame or HTTP response.
    public var closeTimeout = 2.0
    /// Connections beyond this are closed right after accept.
    public var maxConnections = 20_000
    /// The page served at `GET /`.
    public var page: String = BrowserPage.html

    public init() {}
}
