/// What the frame parser yields: a complete (reassembled) data message or one control frame.
public enum WebSocketMessage: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// A close frame. `code` is `.noStatus` when the frame had no body (§7.1.5).
    case close(code: WebSocketCloseCode, reason: String)
}

/// A violation of RFC 6455 found while parsing: the connection must be failed with `code` (§7.1.7).
public struct WebSocketProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: WebSocketCloseCode
    public let reason: String
    public init(_ code: WebSocketCloseCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }
    public var description: String { "WebSocket \(code.rawValue): \(reason)" }
}
