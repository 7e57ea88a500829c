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
    /// Seconds without a complete message or control frame before the server pings; a connection
    /// without one for twice this is dropped (bytes of an unfinished frame, or fragments of an
    /// unfinished message, do not count: a slowloris is dropped too).
    public var pingInterval = 20.0
    /// Seconds to wait for the peer to close after our close frame or HTTP response.
    public var closeTimeout = 2.0
    /// Connections beyond this are refused right after accept (plain http: a 503, then the close).
    /// Lowered to what the open-file limit allows, if that is less.
    public var maxConnections = 20_000
    /// Open connections from one IPv4 address beyond this are refused like `maxConnections`. Every
    /// local process (the demo's participants, browser tabs, bots) shares 127.0.0.1, and a NAT shares
    /// one address for a whole office: 64 is several rooms' worth, yet one host cannot take them all.
    public var maxConnectionsPerIP = 64
    /// Rooms that may exist at once; a `__join` that would create one more gets `too_many_rooms`.
    public var maxRooms = 1000
    /// Members of one room; a `__join` past it gets `room_full`. A full mesh of 32 already means
    /// 31 peer connections per participant, more than a browser or a terminal sustains.
    public var maxMembersPerRoom = 32
    /// Messages (data frames and pings) one connection may send per second, sustained...
    public var messagesPerSecond = 50.0
    /// ...and in one burst: a newcomer to a 12-member room sends 11 offers and about a hundred
    /// trickled candidates within a second or two. Excess messages are dropped with `rate_limited`.
    public var messageBurst = 200
    /// Messages dropped for the rate, within one burst of excess, before the connection is closed
    /// with 1008 (the excess ends when the client has been quiet long enough to refill the bucket).
    public var rateRefusalsBeforeClose = 50
    /// Bytes held for all connections together: unparsed input and message fragments plus output
    /// not yet read by the client. Past it the connection holding the most is dropped (not the
    /// server): each connection may otherwise hold a 1 MiB message plus 4 MiB of output.
    public var maxBufferedBytes = 64 << 20
    /// Seconds a member whose connection dropped without a close keeps its place in the room, waiting for its
    /// client to reconnect with its resume token (conftui format; docs/skyrtc-protocol.md §10). 0: leave at once.
    public var resumeGrace = SkyRTCRooms.defaultResumeGrace
    /// Web origins allowed to open a WebSocket besides the server's own page (`OriginPolicy`);
    /// `*` allows any. Clients that send no `Origin` (non-browser ones) are always allowed.
    public var allowedOrigins: [String] = []
    /// The page served at `GET /`.
    public var page: String = BrowserPage.html

    public init() {}
}
