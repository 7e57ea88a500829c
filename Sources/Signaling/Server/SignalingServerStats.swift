/// A snapshot of the server's counters, published by the event loop after every turn.
public struct SignalingServerStats: Equatable, Sendable {
    /// Open TCP connections (any phase).
    public var connections = 0
    /// Connections past the WebSocket handshake (the room machine's sockets).
    public var webSockets = 0
    public var rooms = 0
    /// Sockets that are members of a room.
    public var joined = 0
    /// Connections accepted since start.
    public var accepted = 0
    /// Connections dropped for not reading (outgoing buffer over the cap).
    public var droppedSlowConsumers = 0
    /// Connections refused right after accept by the total or per-address cap.
    public var refusedConnections = 0
    /// WebSocket upgrades refused with 403 for their Origin.
    public var refusedOrigins = 0
    /// Messages dropped for exceeding a connection's rate.
    public var rateLimited = 0
    /// Connections dropped because the server's buffered bytes passed `maxBufferedBytes`.
    public var droppedOverBudget = 0
    public init() {}
}
