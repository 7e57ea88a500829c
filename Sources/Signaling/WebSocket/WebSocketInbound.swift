/// What the frame parser yields to the server: a data message kept as the bytes it arrived in
/// (a text one already checked to be UTF-8, §8.1), or a control frame. The server parses JSON from
/// those bytes directly; building a `String` first would copy and validate every message twice.
public enum WebSocketInbound: Equatable, Sendable {
    case data([UInt8], isText: Bool)
    case control(WebSocketMessage)

    /// The same message as `WebSocketMessage` (text as a `String`), for clients and tests.
    public var message: WebSocketMessage {
        switch self {
        case .data(let bytes, let isText):
            // Validated by the parser, so decoding never repairs anything.
            return isText ? .text(String(decoding: bytes, as: UTF8.self)) : .binary(bytes)
        case .control(let message):
            return message
        }
    }
}
