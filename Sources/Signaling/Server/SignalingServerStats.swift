/// A snapshot of the server's counters, published by the event loop after every turn; read-only outside Signaling.
public struct SignalingServerStats: Equatable, Sendable {
    /// Open TCP connections (any phase).
    public internal(set) var connections = 0
    /// Connections past the WebSocket handshake (the room machine's sockets).
    public internal(set) var webSockets = 0
    public internal(set) var rooms = 0
    /// Sockets that are members of a room (held ones included).
    public internal(set) var joined = 0
    /// Members whose connection dropped, kept for a resume (docs/skyrtc-protocol.md §10).
    public internal(set) var held = 0
    /// Members that resumed on a new connection since start.
    public internal(set) var resumed = 0
    /// Connections accepted since start.
    public internal(set) var accepted = 0
    /// Connections dropped for not reading (outgoing buffer over the cap).
    public internal(set) var droppedSlowConsumers = 0
    /// Connections refused right after accept by the total or per-address cap.
    public internal(set) var refusedConnections = 0
    /// WebSocket upgrades refused with 403 for their Origin.
    public internal(set) var refusedOrigins = 0
    /// Messages dropped for exceeding a connection's rate.
    public internal(set) var rateLimited = 0
    /// Connections dropped because the server's buffered bytes passed `maxBufferedBytes`.
    public internal(set) var droppedOverBudget = 0
}
